import { DatabaseSync } from "node:sqlite";
import pg from "pg";

/**
 * Makes a service's database fail its writes for real until the returned function is called, so a test sees the
 * service answer a genuine 500 (no stub in the server): a trigger refuses every update of this one account's row, so
 * the statement fails as one that breaks a constraint would, and other accounts of the service are untouched. (A held
 * lock would not do: since issue #28 a write that waits past the busy or lock timeout answers 503, "try again".)
 */
export async function failAccountWrites(databaseUrl: string, email: string): Promise<() => Promise<void>> {
  if (databaseUrl.startsWith("sqlite:")) {
    const db = new DatabaseSync(databaseUrl.slice("sqlite:".length));
    // The service's own connection may hold the write lock a moment: wait for it rather than fail.
    db.exec("PRAGMA busy_timeout = 5000");
    const address = email.replaceAll("'", "''");
    db.exec(`CREATE TRIGGER e2e_refuse_write BEFORE UPDATE ON users FOR EACH ROW WHEN old.email = '${address}'
      BEGIN SELECT RAISE(ABORT, 'e2e: writes of this account are refused'); END`);
    return async () => {
      db.exec("DROP TRIGGER e2e_refuse_write");
      db.close();
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
