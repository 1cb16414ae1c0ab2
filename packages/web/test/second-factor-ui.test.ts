import { describe, expect, it } from "vitest";
import { groupedSecret } from "../src/screens/profile/security/AuthenticatorApp.tsx";
import { recoveryCodesFile } from "../src/screens/profile/security/RecoveryCodes.tsx";
import { proofOf } from "../src/screens/step-up/StepUpDialog.tsx";

const account = { hasPassword: true, totp: false, recoveryCodesLeft: 0, passkeys: [], freshUntil: null };
const passkey = { id: "p1", name: "Phone", createdAt: 1, lastUsedAt: null, backedUp: true };

describe("what the step-up dialog asks (issue #26)", () => {
  it("asks the password alone of an account without a second factor", () => {
    expect(proofOf(account)).toMatchObject({ password: true, code: false, signInAgain: false });
  });

  it("asks the password and the authenticator code where the app is on", () => {
    expect(proofOf({ ...account, totp: true, recoveryCodesLeft: 10 })).toMatchObject({
      password: true,
      code: true,
      firstMethod: "totp",
    });
  });

  it("asks a recovery code of an account whose factor is a passkey", () => {
    expect(proofOf({ ...account, passkeys: [passkey], recoveryCodesLeft: 3 })).toMatchObject({
      code: true,
      firstMethod: "recovery_code",
      signInAgain: false,
    });
  });

  it("sends an account with nothing to type through a new sign-in", () => {
    expect(proofOf({ ...account, hasPassword: false }).signInAgain).toBe(true);
    expect(proofOf({ ...account, hasPassword: false, passkeys: [passkey] }).signInAgain).toBe(true);
    // A password alone is not the second factor the account has: its passkey signs in again.
    expect(proofOf({ ...account, passkeys: [passkey] })).toMatchObject({ signInAgain: true, password: false });
    expect(proofOf({ ...account, hasPassword: false, totp: true }).signInAgain).toBe(false);
  });
});

describe("the authenticator app's setup key and the recovery-codes file (issue #26)", () => {
  it("groups the setup key in fours, as people type it", () => {
    expect(groupedSecret("JBSWY3DPEHPK3PXPJB")).toBe("JBSW Y3DP EHPK 3PXP JB");
  });

  it("writes one code a line under a title", () => {
    expect(recoveryCodesFile("Gatehouse recovery codes for a@b.co", ["aaaa-1111", "bbbb-2222"])).toBe(
      "Gatehouse recovery codes for a@b.co\n\naaaa-1111\nbbbb-2222\n",
    );
  });
});
