import type { Origin } from "../accounts/origin.ts";
import { type Resolution, resolveCorporate, resolveSocial } from "../federation/accounts.ts";
import type { ProviderProfile } from "../federation/relying-party.ts";
import type { IdentityProvider } from "../settings/idps.ts";
import type { Db } from "../store/db.ts";
import { type Amr, type Proof, proofOf } from "./proofs.ts";

/** A provider's answer: a proof, a registration or link the person still has to make, or a refusal for the page. */
export type FederatedOutcome = { kind: "proof"; proof: Proof } | Exclude<Resolution, { kind: "sign_in" }>;

/**
 * The federated proof (issue #24 §1): an identity provider's answer, already checked by openid-client
 * (federation/relying-party.ts), resolved to an account by the provider's kind (federation/accounts.ts: identities
 * are keyed by provider and subject, never by address). A linked identity is a proof of its account.
 */
export async function verifyFederated(
  db: Db,
  idp: IdentityProvider,
  profile: ProviderProfile,
  context: { browser: string; origin: Origin; country: string },
): Promise<FederatedOutcome> {
  const { browser, origin, country } = context;
  const resolution =
    idp.kind === "corporate"
      ? await resolveCorporate(db, idp, profile, { ...origin, country })
      : await resolveSocial(db, idp, profile, { browser, returnTo: origin.returnTo });
  if (resolution.kind !== "sign_in") return resolution;
  const proof = proofOf(resolution.user, idp.kind, idp.id);
  if (idp.kind === "corporate" && reportsMfa(profile.amr)) return { kind: "proof", proof: withMfa(proof) };
  return { kind: "proof", proof };
}

/** One-time code or key values that, beside a password, make two factors at the company's provider (RFC 8176). */
const SECOND_FACTOR_AMR = new Set(["otp", "hwk", "swk"]);

/**
 * Issue #26: a company's identity provider that reports its own multi-factor sign-in (its ID token's `amr` says
 * `mfa`, or a password together with a one-time code or a key) is trusted for it (NIST SP 800-63C federation at
 * AAL2); anything else — no `amr`, a password alone — is one factor. Social providers are not trusted for it.
 */
export function reportsMfa(amr: readonly string[]): boolean {
  if (amr.includes("mfa")) return true;
  return amr.includes("pwd") && amr.some((value) => SECOND_FACTOR_AMR.has(value));
}

const withMfa = (proof: Proof): Proof => ({ ...proof, amr: [...new Set<Amr>([...proof.amr, "mfa"])] });
