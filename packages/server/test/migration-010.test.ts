import { Migrator, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { migrate, openDatabase } from "../src/store/db.ts";
import { migrationProvider } from "../src/store/migrations/index.ts";
import { freshPostgres } from "./harness.ts";

/**
 * Migration 010 makes each existing session a sign-in of its own (sign_in_id = id, a 64-character SHA-256 hex).
 * SQLite ignores column lengths, PostgreSQL does not: an upgrade with people signed in must pass there too.
 */
describe("migration 010 on a PostgreSQL database with live sessions", () => {
  it("upgrades a database that has a signed-in session", async () => {
    const { db } = openDatabase(await freshPostgres());
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo("009-oidc");
      expect(error).toBeUndefined();
      const now = Date.now();
      await sql`insert into users (id, email, email_normalized, status, created_at, updated_at)
        values ('00000000-0000-4000-8000-000000000001', 'a@example.com', 'a@example.com', 'active', ${now}, ${now})`.execute(
        db,
      );
      // A real session id: sha256 hex, 64 characters.
      await sql`insert into sessions (id, user_id, created_at, last_seen_at, expires_at, ip, user_agent, auth_time, auth_method)
        values (${"a".repeat(64)}, '00000000-0000-4000-8000-000000000001', ${now}, ${now}, ${now + 3_600_000}, '127.0.0.1', 'ua', ${now}, 'password')`.execute(
        db,
      );
      await expect(migrate(db)).resolves.toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});
