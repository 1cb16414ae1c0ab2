import type { ErrorCode, SignInMethod } from "@gatehouse/contract";
import type { UserRow } from "../store/schema.ts";

/**
 * RFC 8176 authentication method references a proof may carry: a password, a one-time code (a mailed link's code
 * today; an authenticator app's in issue #26), another identity provider, and the passkey and multi-factor values
 * issue #26 adds (`hwk`/`swk`, `user`, `mfa`).
 */
export type Amr = "pwd" | "otp" | "fed" | "hwk" | "swk" | "user" | "mfa";

/** Who proved to be whom, and how: what every verifier answers when the proof holds (issue #24 §1). */
export interface Proof {
  user: UserRow;
  method: SignInMethod;
  /** The identity provider of a social or corporate sign-in (its id in IDPS_FILE). */
  idp?: string;
  amr: readonly Amr[];
}

/**
 * Why a proof was not accepted, as the API's error code; `temporary` for a block that ends by itself (or false for
 * a code that will never work); `field` when the refusal belongs to a field of the form (a new password's policy).
 */
export interface Refusal {
  code: ErrorCode;
  temporary?: boolean;
  field?: string;
}

/** A verifier's answer: the proof, or the refusal it already counted and audited. */
export type Verified = { ok: true; proof: Proof } | { ok: false; refusal: Refusal };

/** RFC 8176 values of each way in today; issue #26's second factors add theirs to the attempt's proofs. */
export const METHOD_AMR: Readonly<Record<SignInMethod, readonly Amr[]>> = {
  password: ["pwd"],
  password_setup: ["pwd"],
  activation: ["otp"],
  social: ["fed"],
  corporate: ["fed"],
  forum: ["fed"],
  // A passkey with user verification: a possession factor and a PIN or biometric, so two factors (RFC 8176). A synced
  // passkey is a software key (swk), a device-bound one a hardware key (hwk): its verifier gives the proof's own amr.
  passkey: ["swk", "user", "mfa"],
};

/** The proof a verifier gives for an account proven by `method`. */
export function proofOf(user: UserRow, method: SignInMethod, idp?: string): Proof {
  return { user, method, amr: METHOD_AMR[method], ...(idp ? { idp } : {}) };
}

export const refused = (code: ErrorCode, temporary?: boolean): Verified => ({
  ok: false,
  refusal: temporary === undefined ? { code } : { code, temporary },
});
