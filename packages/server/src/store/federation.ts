import { sql } from "kysely";
import type { Db } from "./db.ts";
import type { FederationFlowRow, FederationPendingRow } from "./schema.ts";
import { deleteBatch, SWEEP_BATCH } from "./sweep.ts";

/** Round trips to identity providers and the answers that wait for the person (issue #11). */
export const federationStore = {
  insertFlow: async (db: Db, row: FederationFlowRow): Promise<void> => {
    await db.insertInto("federation_flows").values(row).execute();
  },

  /**
   * Takes a flow once (deleted as it is read, so two answers racing on two nodes cannot both use it), and only for
   * the browser and provider that started it, before it expires (ASVS 10.1.2: state bound to the user agent).
   */
  consumeFlow: async (
    db: Db,
    id: string,
    bound: { browser: string; provider: string },
    now: number,
  ): Promise<FederationFlowRow | undefined> => {
    const [row] = await db
      .deleteFrom("federation_flows")
      .where("id", "=", id)
      .where("browser", "=", bound.browser)
      .where("provider", "=", bound.provider)
      .returningAll()
      .execute();
    return row && row.expires_at > now ? row : undefined;
  },

  /**
   * A browser's pending sign-in replaces the one it had: the latest answer is the one the person acts on. One upsert,
   * so two answers for one browser arriving together (two tabs, two nodes) both succeed and the later one stays; a
   * delete then insert let both delete, and the second insert met the primary key (issue #14).
   */
  putPending: async (db: Db, row: FederationPendingRow): Promise<void> => {
    const { browser: _, ...answer } = row;
    await db
      .insertInto("federation_pending")
      .values(row)
      .onConflict((oc) => oc.column("browser").doUpdateSet(answer))
      .execute();
  },

  findPending: async (db: Db, browser: string, now: number): Promise<FederationPendingRow | undefined> => {
    const row = await db.selectFrom("federation_pending").selectAll().where("browser", "=", browser).executeTakeFirst();
    return row && row.expires_at > now ? row : undefined;
  },

  /** Takes a pending sign-in once; false when another request took it first. */
  consumePending: async (db: Db, browser: string, now: number): Promise<FederationPendingRow | undefined> => {
    const [row] = await db.deleteFrom("federation_pending").where("browser", "=", browser).returningAll().execute();
    return row && row.expires_at > now ? row : undefined;
  },

  /** At most `limit` expired rows of each table per call (issue #28: the sweeper calls again). */
  deleteExpired: async (db: Db, now: number, limit = SWEEP_BATCH): Promise<number> => {
    const flows = await deleteBatch(db, "federation_flows", sql`expires_at <= ${now}`, limit);
    const pending = await deleteBatch(db, "federation_pending", sql`expires_at <= ${now}`, limit);
    return Math.max(flows, pending);
  },
};
