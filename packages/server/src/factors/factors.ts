import type { Db } from "../store/db.ts";

/** What second factors an account has (issue #26): the sign-in core, step-up and the security section read it. */
export interface Factors {
  /** An authenticator app, confirmed by a valid code. */
  totp: boolean;
  /** Passkeys and security keys registered. */
  passkeys: number;
  /** Unused recovery codes left. */
  recoveryCodesLeft: number;
}

export async function factorsOf(db: Db, userId: string): Promise<Factors> {
  const [totp, passkeys, codes] = await Promise.all([
    db
      .selectFrom("totp_factors")
      .select("user_id")
      .where("user_id", "=", userId)
      .where("confirmed_at", "is not", null)
      .executeTakeFirst(),
    db
      .selectFrom("passkeys")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("user_id", "=", userId)
      .executeTakeFirst(),
    db
      .selectFrom("recovery_codes")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("user_id", "=", userId)
      .where("used_at", "is", null)
      .executeTakeFirst(),
  ]);
  return { totp: totp !== undefined, passkeys: Number(passkeys?.n ?? 0), recoveryCodesLeft: Number(codes?.n ?? 0) };
}

/**
 * A second factor is an authenticator app or a passkey. Recovery codes alone are not one: they are the way back in
 * when the factor is lost, made when the first factor is turned on.
 */
export const hasSecondFactor = (factors: Factors): boolean => factors.totp || factors.passkeys > 0;
