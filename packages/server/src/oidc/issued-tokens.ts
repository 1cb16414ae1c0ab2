import type Provider from "oidc-provider";
import { counts, type TokenType } from "../metrics/counts.ts";
import type { Db } from "../store/db.ts";

/** The grant types our own minted tokens carry (legacy.ts `mintLegacyToken`, api-token.ts `mintLicenceToken`). */
const MINTED: Readonly<Record<string, TokenType>> = { legacy_token: "legacy", studio_token: "licence" };

/**
 * Counts the tokens the provider issues (issue #14, gatehouse_tokens_issued_total) from its events: an access token
 * is `saved` when opaque and `issued` when a JWT, ours included (they are the provider's AccessToken, told apart by
 * their grant type); a refresh token is saved whenever one is issued, a rotation's new one too; an ID token is no
 * stored model, so it is read from the answers of the token and authorization endpoints.
 */
export function countIssuedTokens(provider: Provider, db: Db): void {
  const accessToken = (token: { gty?: string }) => counts(db).tokenIssued((token.gty && MINTED[token.gty]) || "access");
  provider.on("access_token.saved", accessToken);
  provider.on("access_token.issued", accessToken);
  provider.on("refresh_token.saved", () => counts(db).tokenIssued("refresh"));
  provider.on("grant.success", (ctx: { body?: unknown }) => {
    if (hasIdToken(ctx.body)) counts(db).tokenIssued("id");
  });
  provider.on("authorization.success", (_ctx: unknown, out: unknown) => {
    if (hasIdToken(out)) counts(db).tokenIssued("id");
  });
}

function hasIdToken(answer: unknown): boolean {
  return typeof answer === "object" && answer !== null && "id_token" in answer && Boolean(answer.id_token);
}
