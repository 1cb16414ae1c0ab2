import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";

/**
 * Issue #28, one durable queue: mail becomes a job of kind "mail" (its message stays in the outbox, which the dev
 * mailbox and the admin command line read), leased for 30 s and renewed while it runs (jobs/worker.ts).
 * - `jobs.lease_token`: random per claim; a renewal and the finish name it, so only the claim's holder extends or
 *   finishes the job (comparing `claimed_until` no longer can: a renewal moves it).
 * - Every pending outbox message gets its "mail" job, due when it was (after a lease that an older node holds on
 *   it), and is marked held for good in the outbox, so a node of the release before, still running during a rolling
 *   upgrade, never sends it too (its worker skips a held message).
 */
const LEGACY_OUTBOX_HOLD = Number.MAX_SAFE_INTEGER;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("lease_token", "varchar(36)").execute();
  const pending = await (db as Kysely<Legacy>)
    .selectFrom("outbox")
    .select(["id", "attempts", "next_attempt_at", "claimed_until", "created_at"])
    .where("status", "=", "pending")
    .execute();
  for (const mail of pending) {
    const due = Math.max(Number(mail.next_attempt_at), Number(mail.claimed_until ?? 0));
    await (db as Kysely<Legacy>)
      .insertInto("jobs")
      .values({
        id: randomUUID(),
        kind: "mail",
        payload: JSON.stringify({ outboxId: mail.id }),
        status: "pending",
        attempts: mail.attempts,
        next_attempt_at: due,
        claimed_until: null,
        last_error: null,
        created_at: Number(mail.created_at),
        done_at: null,
      })
      .execute();
  }
  await (db as Kysely<Legacy>)
    .updateTable("outbox")
    .set({ claimed_until: LEGACY_OUTBOX_HOLD })
    .where("status", "=", "pending")
    .execute();
}

/** The two tables as this migration finds them. */
interface Legacy {
  outbox: {
    id: string;
    status: string;
    attempts: number;
    next_attempt_at: number | string;
    claimed_until: number | string | null;
    created_at: number | string;
  };
  jobs: {
    id: string;
    kind: string;
    payload: string;
    status: string;
    attempts: number;
    next_attempt_at: number;
    claimed_until: number | null;
    last_error: string | null;
    created_at: number;
    done_at: number | null;
  };
}
