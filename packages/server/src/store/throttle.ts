import { sql } from "kysely";
import type { Db } from "./db.ts";
import type { AttemptScope, ThrottleRow } from "./schema.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** One allowance of password attempts: whose it is, and which account it belongs to. */
export interface AllowanceKey {
  scope: AttemptScope;
  key: string;
  accountKey: string;
}

/** Queries of the password-attempt counters (docs/decisions.md "Sign-in throttling"). */
export const throttleStore = {
  find: (db: Db, allowance: Pick<AllowanceKey, "scope" | "key">): Promise<ThrottleRow | undefined> =>
    db
      .selectFrom("login_throttle")
      .selectAll()
      .where("scope", "=", allowance.scope)
      .where("key", "=", allowance.key)
      .executeTakeFirst(),

  /**
   * Counts one attempt and returns its number, in one atomic statement on SQLite and PostgreSQL (both evaluate
   * every SET expression against the row as it was), so concurrent attempts on any number of instances each get
   * their own number. The attempt that reaches `threshold` arms the block at once, before its password is
   * verified; a running block is never extended; once it has ended the count starts again at 1.
   */
  claim: async (
    db: Db,
    allowance: AllowanceKey,
    now: number,
    rule: { threshold: number; windowMs: number },
  ): Promise<number> => {
    if (rule.threshold < 2) throw new Error("a lockout threshold below 2 is not supported");
    const ended = sql<boolean>`login_throttle.blocked_until is not null and login_throttle.blocked_until <= ${now}`;
    const row = await db
      .insertInto("login_throttle")
      .values({
        scope: allowance.scope,
        key: allowance.key,
        account_key: allowance.accountKey,
        attempts: 1,
        blocked_until: null,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(["scope", "key"]).doUpdateSet({
          attempts: sql<number>`case when ${ended} then 1 else login_throttle.attempts + 1 end`,
          blocked_until: sql<number | null>`case
            when ${ended} then null
            when login_throttle.blocked_until is not null then login_throttle.blocked_until
            when login_throttle.attempts + 1 >= ${rule.threshold} then ${now + rule.windowMs}
            else null end`,
          updated_at: now,
        }),
      )
      .returning("attempts")
      .executeTakeFirstOrThrow();
    return Number(row.attempts);
  },

  /** Forgets one allowance's count (a right password on it). */
  clear: async (db: Db, allowance: Pick<AllowanceKey, "scope" | "key">): Promise<void> => {
    await db
      .deleteFrom("login_throttle")
      .where("scope", "=", allowance.scope)
      .where("key", "=", allowance.key)
      .execute();
  },

  /** Forgets every allowance of an account: its own and each of its trusted devices'. */
  clearAccount: async (db: Db, accountKey: string): Promise<void> => {
    await db.deleteFrom("login_throttle").where("account_key", "=", accountKey).execute();
  },

  /** Drops counts untouched since `before` that hold no running block. */
  /** At most `limit` of them per call (issue #28: the sweeper calls again). */
  deleteStale: (db: Db, before: number, now: number, limit = SWEEP_BATCH): Promise<number> =>
    deleteBatch(
      db,
      "login_throttle",
      sql`updated_at < ${before} and (blocked_until is null or blocked_until <= ${now})`,
      limit,
    ),
};
