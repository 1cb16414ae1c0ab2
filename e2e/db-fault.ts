import { DatabaseSync } from "node:sqlite";
import pg from "pg";

/**
 * Makes a service's database fail its writes for real until the returned function is called, so a test sees the
 * service answer a genuine 5xx (no stub in the server). On SQLite another connection holds the write lock, so the
 * service's write fails once its busy timeout runs out. On PostgreSQL a held lock only makes a write wait (the
 * service sets no lock timeout), so a trigger refuses every update of this one account's row instead: the
 * statement fails, as one that breaks a constraint would, and other accounts of the service are untouched.
 */
export async function failAccountWrites(databaseUrl: string, email: string): Promise<() => Promise<void>> {
  if (databaseUrl.startsWith("sqlite:")) {
    const lock = new DatabaseSync(databaseUrl.slice("sqlite:".length));
    lock.exec("BEGIN IMMEDIATE");
    return async () => {
      lock.exec("ROLLBACK");
      lock.close();
    };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`create function e2e_refuse_write() returns trigger language plpgsql as $$
    begin raise exception 'e2e: writes of this account are refused'; end $$`);
  await client.query(`create trigger e2e_refuse_write before update on users for each row
    when (old.email = ${client.escapeLiteral(email)}) execute function e2e_refuse_write()`);
  return async () => {
    await client.query("drop trigger e2e_refuse_write on users");
    await client.query("drop function e2e_refuse_write()");
    await client.end();
  };
}
