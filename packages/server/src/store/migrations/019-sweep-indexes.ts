import type { Kysely } from "kysely";

/**
 * Issue #28, the bounded sweeper: each of its statements finds at most a batch of expired rows, which without an
 * index on the column it compares would read the whole table once per batch. The other swept tables have theirs
 * already (oidc_models, session_links, sign_in_attempts, … `expires_at`; login_throttle `updated_at`; audit `at`).
 * Named `*_sweep` so they stand apart from the indexes the hot paths ask for (migration 020).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // A session ends at its lifetime or its idle timeout: the sweep's `or` is served by one index each.
  await db.schema.createIndex("sessions_expires_at_sweep").on("sessions").column("expires_at").execute();
  await db.schema.createIndex("sessions_last_seen_at_sweep").on("sessions").column("last_seen_at").execute();
  await db.schema.createIndex("codes_expires_at_sweep").on("codes").column("expires_at").execute();
  await db.schema.createIndex("captchas_expires_at_sweep").on("captchas").column("expires_at").execute();
  await db.schema.createIndex("spent_tokens_expires_at_sweep").on("spent_tokens").column("expires_at").execute();
}
