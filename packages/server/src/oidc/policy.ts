import { interactionPolicy, type KoaContextWithOIDC } from "oidc-provider";
import type { Config } from "../config.ts";
import type { Db } from "../store/db.ts";
import { mfaDemanded } from "./assurance.ts";
import { gatewayCookieName, readGatewaySessionForProvider } from "./gateway-session.ts";

const { Check, base } = interactionPolicy;

/**
 * The provider's prompts with one more check on `login`: its session is reused only while the browser's gateway
 * session is live, belongs to the same account and owes no step (issue #10 §1: the gateway session is the one
 * source of truth). Otherwise the person comes to our screens, which finish at once from a usable gateway
 * session or ask them to sign in: a provider session can neither outlive nor revive a gateway session.
 */
export function interactionsPolicy(db: Db, config: Config) {
  const policy = base();
  const cookie = gatewayCookieName(config);
  policy.get("login")?.checks.add(
    // login_required, as for no session at all: with prompt=none the site learns it must send the person to sign in.
    new Check(
      "gateway_session",
      "End-User authentication is required",
      "login_required",
      async (ctx: KoaContextWithOIDC) => {
        const accountId = ctx.oidc.session?.accountId;
        if (!accountId) return Check.NO_NEED_TO_PROMPT; // `no_session` asks for a sign-in already
        const gateway = await readGatewaySessionForProvider(db, ctx.cookies.get(cookie));
        const usable = gateway !== undefined && gateway.userId === accountId;
        return usable ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
      },
    ),
  );
  policy.get("login")?.checks.add(
    // Issue #26: a client that demands a second factor (require_mfa, acr_values=aal2) never gets a sign-in that was
    // made without one, even from the provider's remembered session; with prompt=none it learns the level it asked
    // cannot be reached without the person (RFC 9470 §3).
    new Check(
      "second_factor",
      "a second factor is required",
      "insufficient_user_authentication",
      (ctx: KoaContextWithOIDC) => {
        const { session, params, client } = ctx.oidc;
        if (!session?.accountId || !mfaDemanded({ params: params ?? {}, client })) return Check.NO_NEED_TO_PROMPT;
        return session.amr?.includes("mfa") ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
      },
    ),
  );
  return policy;
}
