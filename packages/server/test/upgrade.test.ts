import { join } from "node:path";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { migrate, openDatabase } from "../src/store/db.ts";
import { type DatabaseName, describeDatabases, freshPostgres, startServer, tempDir } from "./harness.ts";

/**
 * A rolling upgrade (issue #14, docs/operations.md "Upgrades"): the newer release migrates first, and a node of the
 * older release that starts afterwards still runs on that database; a database this release cannot run on refuses.
 */
const databases: [DatabaseName, () => Promise<string>][] = [
  ["SQLite", async () => `sqlite:${join(tempDir(), "gatehouse.db")}`],
  ["PostgreSQL", freshPostgres],
];

describeDatabases(databases)("migrations side by side on %s", (_name, database) => {
  it("lets a node of the older release start on a database a newer release has migrated", async () => {
    const url = await database();
    const { db } = openDatabase(url);
    try {
      expect(await migrate(db)).toEqual([]);
      await sql`insert into kysely_migration (name, timestamp) values ('999-a-newer-release', ${new Date().toISOString()})`.execute(
        db,
      );
      expect(await migrate(db)).toEqual(["999-a-newer-release"]);
    } finally {
      await db.destroy();
    }
    // The whole node starts and serves on it.
    const server = await startServer({ databaseUrl: url });
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/session`)).status).toBe(204);
    } finally {
      await server.close();
    }
  });

  it("refuses a database that lacks migrations of this release and has others it does not know", async () => {
    const { db } = openDatabase(await database());
    try {
      await migrate(db);
      await sql`delete from kysely_migration where name = '013-forum'`.execute(db);
      await sql`insert into kysely_migration (name, timestamp) values ('999-elsewhere', ${new Date().toISOString()})`.execute(
        db,
      );
      await expect(migrate(db)).rejects.toThrow(
        /does not know \(999-elsewhere\) and lacks some it needs \(013-forum\)/u,
      );
    } finally {
      await db.destroy();
    }
  });
});
