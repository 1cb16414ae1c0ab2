import { sql } from "kysely";
import { type Db, kindOf, openDatabase } from "../src/store/db.ts";

/** A kind of write the database refuses; `update of password_hash` is an update that sets that column. */
export interface Refusal {
  table: "users" | "outbox" | "audit" | "jobs";
  event: "insert" | "update" | "delete" | "update of password_hash";
  /** Only writes of this account's row (users only); other accounts are untouched. */
  email?: string;
  /**
   * PostgreSQL only: the SQLSTATE the refusal carries, e.g. 57P01 (admin_shutdown), what a restart's connections
   * get, so the server sees the database away rather than a broken statement. Without it, P0001 (raise_exception).
   */
  errcode?: string;
}

/** The message of the refused statement's error. */
export const REFUSED = "injected failure";

/**
 * Makes the database refuse a kind of write for real until the returned function is called: a trigger that raises,
 * so the statement fails as one that breaks a constraint would (no stub in the server). Tests use it to fail a
 * statement inside a transaction after its earlier statements ran, and the e2e suite to make a service answer a
 * genuine 500. (A held lock would not do: since issue #28 a wait past the busy or lock timeout answers 503.)
 */
export async function refuseWrites(db: Db, { table, event, email, errcode }: Refusal): Promise<() => Promise<void>> {
  const postgres = kindOf(db) === "postgres";
  const when = email === undefined ? "" : `when (old.email = '${email.replaceAll("'", "''")}')`;
  if (postgres) {
    const using = errcode === undefined ? "" : ` using errcode = '${errcode.replaceAll("'", "''")}'`;
    await sql
      .raw(`create or replace function refuse_write() returns trigger language plpgsql as $$
      begin raise exception '${REFUSED}'${using}; end $$`)
      .execute(db);
    await sql
      .raw(
        `create trigger refuse_write before ${event} on ${table} for each row ${when} execute function refuse_write()`,
      )
      .execute(db);
  } else {
    await sql
      .raw(`create trigger refuse_write before ${event} on ${table} for each row ${when}
        begin select raise(abort, '${REFUSED}'); end`)
      .execute(db);
  }
  return async () => {
    await sql.raw(postgres ? `drop trigger refuse_write on ${table}` : "drop trigger refuse_write").execute(db);
  };
}

/** `refuseWrites` on another process's database (a service the e2e suite started), over a connection of its own. */
export async function refuseWritesAt(databaseUrl: string, refusal: Refusal): Promise<() => Promise<void>> {
  // The service's own connection may hold SQLite's write lock a moment: wait for it rather than fail.
  const { db } = openDatabase(databaseUrl, { busyTimeoutMs: 5_000 });
  const restore = await refuseWrites(db, refusal);
  return async () => {
    await restore();
    await db.destroy();
  };
}
