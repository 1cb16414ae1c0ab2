import { type Kysely, sql } from "kysely";

/** Users, signed-in sessions and the sign-in throttle. One migration set for SQLite and PostgreSQL. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "varchar(36)", (c) => c.primaryKey())
    .addColumn("email", "varchar(254)", (c) => c.notNull())
    .addColumn("email_normalized", "varchar(254)", (c) => c.notNull().unique())
    .addColumn("password_hash", "varchar(255)")
    .addColumn("first_name", "varchar(300)", (c) => c.notNull().defaultTo(""))
    .addColumn("last_name", "varchar(300)", (c) => c.notNull().defaultTo(""))
    .addColumn("country_code", "varchar(2)", (c) => c.notNull().defaultTo("ZZ"))
    .addColumn("newsletter", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("status", "varchar(16)", (c) => c.notNull().check(sqlIn("status", ["pending", "active", "disabled"])))
    .addColumn("customer_number", "varchar(64)")
    .addColumn("password_allowed", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("required_password_update", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("required_profile_update", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("language", "varchar(8)", (c) => c.notNull().defaultTo("en"))
    .addColumn("brand", "varchar(32)", (c) => c.notNull().defaultTo("default"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("sessions")
    .addColumn("id", "varchar(64)", (c) => c.primaryKey())
    .addColumn("user_id", "varchar(36)", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_seen_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("ip", "varchar(64)", (c) => c.notNull())
    .addColumn("user_agent", "varchar(512)", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_user_id").on("sessions").column("user_id").execute();

  await db.schema
    .createTable("login_throttle")
    .addColumn("key", "varchar(64)", (c) => c.primaryKey())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("locked_until", "bigint")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
}

function sqlIn(column: string, values: readonly string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}
