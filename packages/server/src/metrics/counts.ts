import type { SignInMethod } from "@gatehouse/contract";
import type { Db } from "../store/db.ts";

/** A sign-in's method as counted: the session's, or a brand host that received a sign-in made elsewhere. */
export type SignInLabel = SignInMethod | "linked_session";
/** How a sign-in ended: signed in, refused (wrong password, account state), or refused unverified during a block. */
export type SignInOutcome = "success" | "failure" | "blocked";
/**
 * What refused a request for being one too many (docs/deployment.md "Metrics"): a sign-in block starting, a password attempt
 * refused unverified during one, a per-client-address rate limit, a recovery mail held back by the address's quota.
 */
export type BlockKind = "lockout" | "blocked_attempt" | "rate_limit" | "recovery_quota";
/** Tokens counted as issued: the provider's, and the ones the gateway mints itself (legacy sites, the studio). */
export type TokenType = "access" | "id" | "refresh" | "legacy" | "licence";

/** What the domain counts for the metrics (issue #14), told as it happens; the app's metrics add it up. */
export interface Counts {
  signIn(method: SignInLabel, outcome: SignInOutcome): void;
  block(kind: BlockKind): void;
  mailQueued(kind: string): void;
  mailSent(): void;
  /** A failed delivery attempt; `final` when it was the last one and the mail is given up. */
  mailFailed(final: boolean): void;
  tokenIssued(type: TokenType): void;
}

const NOTHING: Counts = {
  signIn() {},
  block() {},
  mailQueued() {},
  mailSent() {},
  mailFailed() {},
  tokenIssued() {},
};

/**
 * Counts by database, as the session-end listeners are found (events/sessions-ended.ts): the app and the domain functions
 * share the database object, so whatever signs in, blocks or queues a mail counts without being handed the app, and
 * two apps in one process (tests) never count into each other's metrics.
 */
const byDatabase = new WeakMap<object, Counts>();

/**
 * The object that names a database for its transactions too: mail is queued inside the transaction of the change it
 * tells of, and a Kysely transaction runs on its database's own dialect adapter. `getExecutor` is Kysely's internal
 * API; test/metrics.test.ts counts a registration's mail, queued in a transaction, so a change there fails a test.
 */
function databaseOf(db: Db): object {
  return db.getExecutor().adapter;
}

/** Counts what happens on this database (and its transactions) into `counts`, until the returned function stops it. */
export function countOn(db: Db, counts: Counts): () => void {
  const key = databaseOf(db);
  byDatabase.set(key, counts);
  return () => {
    if (byDatabase.get(key) === counts) byDatabase.delete(key);
  };
}

/** The counts of this database's app; nothing is counted where no app serves metrics (the admin command line). */
export function counts(db: Db): Counts {
  return byDatabase.get(databaseOf(db)) ?? NOTHING;
}
