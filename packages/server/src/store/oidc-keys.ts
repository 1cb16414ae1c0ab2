import type { Db } from "./db.ts";
import type { OidcKeyRow, OidcKeyState } from "./schema.ts";

/** Queries of the provider's signing keys. */
export const oidcKeysStore = {
  all: async (db: Db): Promise<OidcKeyRow[]> => db.selectFrom("oidc_keys").selectAll().orderBy("created_at").execute(),

  insert: async (db: Db, row: OidcKeyRow): Promise<void> => {
    await db.insertInto("oidc_keys").values(row).execute();
  },

  setState: async (db: Db, kid: string, state: OidcKeyState, now: number): Promise<void> => {
    await db.updateTable("oidc_keys").set({ state, updated_at: now }).where("kid", "=", kid).execute();
  },

  delete: async (db: Db, kid: string): Promise<void> => {
    await db.deleteFrom("oidc_keys").where("kid", "=", kid).execute();
  },
};
