import type { Generated, Insertable, Selectable, Updateable } from "kysely";

/** Times are epoch milliseconds; flags are 0/1 integers, the same on SQLite and PostgreSQL. */
export interface UsersTable {
  id: string;
  email: string;
  email_normalized: string;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  country_code: string;
  newsletter: number;
  status: "pending" | "active" | "disabled";
  customer_number: string | null;
  password_allowed: number;
  required_password_update: number;
  required_profile_update: number;
  language: string;
  brand: string;
  created_at: number;
  updated_at: number;
}

export interface SessionsTable {
  /** SHA-256 of the cookie's token: a stolen table does not hold usable tokens. */
  id: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ip: string;
  user_agent: string;
}

export interface LoginThrottleTable {
  /** SHA-256 of the normalised sign-in identifier, known or not (so throttling reveals no account). */
  key: string;
  failures: number;
  locked_until: number | null;
  updated_at: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  login_throttle: LoginThrottleTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type ThrottleRow = Selectable<LoginThrottleTable>;
// Generated is kept exported for later tables with database-made columns.
export type { Generated };
