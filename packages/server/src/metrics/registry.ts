import { SIGN_IN_METHODS } from "@gatehouse/contract";
import type pg from "pg";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { type Db, ping } from "../store/db.ts";
import { outboxStore } from "../store/outbox.ts";
import type { BlockKind, Counts, SignInLabel, SignInOutcome, TokenType } from "./counts.ts";

/**
 * Request durations from 1 ms to 5 s: a session check takes about a millisecond, a sign-in's argon2id hash 100 to
 * 300 ms under load, and anything past 5 s has failed its user already.
 */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** The database must answer a scrape's questions within this, or the scrape says it did not (up 0, NaN). */
const SCRAPE_QUERY_TIMEOUT_MS = 2000;

const SIGN_IN_LABELS: readonly SignInLabel[] = [...SIGN_IN_METHODS, "linked_session"];
const SIGN_IN_OUTCOMES: readonly SignInOutcome[] = ["success", "failure", "blocked"];
const BLOCK_KINDS: readonly BlockKind[] = ["lockout", "blocked_attempt", "rate_limit", "recovery_quota"];
const TOKEN_TYPES: readonly TokenType[] = ["access", "id", "refresh", "legacy", "licence"];

/** One app's metrics (docs/deployment.md "Metrics"): its own registry, never prom-client's global one (tests run several apps). */
export interface Metrics {
  registry: Registry;
  /** What the domain counts (metrics/counts.ts). */
  counts: Counts;
  requests: Counter<"method" | "route" | "status">;
  durations: Histogram<"method" | "route">;
}

/** Builds the registry with every metric of docs/deployment.md "Metrics"; the gauges read the database at scrape time. */
export function createMetrics(options: { db: Db; pool?: pg.Pool }): Metrics {
  const { db, pool } = options;
  const registry = new Registry();
  const registers = [registry];
  // Event-loop lag, heap, GC, process CPU and memory, under prom-client's usual names.
  collectDefaultMetrics({ register: registry });

  // The counters of docs/deployment.md "Metrics", each its name, help text and labels.
  const counter = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers });
  const requests = counter(
    "gatehouse_http_requests_total",
    "Answered HTTP requests, by method, route pattern (unmatched: no route) and status.",
    ["method", "route", "status"],
  );
  const durations = new Histogram({
    name: "gatehouse_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's last byte, by method and route pattern.",
    labelNames: ["method", "route"] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const signIns = counter(
    "gatehouse_sign_ins_total",
    "Sign-ins by method and outcome (success, failure, blocked: refused unverified during a block).",
    ["method", "outcome"],
  );
  const blocks = counter(
    "gatehouse_blocks_total",
    "Requests refused as one too many: lockout, blocked_attempt, rate_limit, recovery_quota.",
    ["kind"],
  );
  const mailQueued = counter("gatehouse_mail_queued_total", "Mails this node put in the outbox, by kind.", ["kind"]);
  const mailSent = counter("gatehouse_mail_sent_total", "Mails this node delivered.");
  const mailFailed = counter(
    "gatehouse_mail_failed_total",
    "Failed delivery attempts of this node (each is retried with back-off until the last).",
  );
  const mailGivenUp = counter("gatehouse_mail_given_up_total", "Mails this node gave up on after their last attempt.");
  const tokens = counter(
    "gatehouse_tokens_issued_total",
    "Tokens issued by this node: access, id, refresh (the provider's), legacy and licence (minted by the gateway).",
    ["type"],
  );
  // Every known series from the start, at zero, so a rate over a series that has not moved yet is 0, not absent.
  for (const method of SIGN_IN_LABELS) for (const outcome of SIGN_IN_OUTCOMES) signIns.inc({ method, outcome }, 0);
  for (const kind of BLOCK_KINDS) blocks.inc({ kind }, 0);
  for (const type of TOKEN_TYPES) tokens.inc({ type }, 0);

  const outbox = onceAtATime(() => outboxStore.waiting(db));
  new Gauge({
    name: "gatehouse_mail_waiting",
    help: "Mails in the outbox not sent yet (shared by every node; NaN when the database did not answer).",
    registers,
    async collect() {
      this.set((await withTimeout(outbox()))?.count ?? Number.NaN);
    },
  });
  new Gauge({
    name: "gatehouse_mail_oldest_waiting_seconds",
    help: "Age of the oldest mail not sent yet, 0 when none waits (NaN when the database did not answer).",
    registers,
    async collect() {
      const waiting = await withTimeout(outbox());
      if (!waiting) this.set(Number.NaN);
      else this.set(waiting.oldestCreatedAt === null ? 0 : Math.max(0, Date.now() - waiting.oldestCreatedAt) / 1000);
    },
  });
  // Untimed: the question stays shared until it is answered, and each scrape gives up on it after its own timeout.
  const databaseUp = onceAtATime(() => ping(db, Number.POSITIVE_INFINITY));
  new Gauge({
    name: "gatehouse_database_up",
    help: "1 when the database answered this scrape's ping in time, else 0.",
    registers,
    async collect() {
      this.set((await withTimeout(databaseUp())) ? 1 : 0);
    },
  });
  if (pool) {
    new Gauge({
      name: "gatehouse_db_pool_connections",
      help: "PostgreSQL connections of this node's pool: total, idle, and waiting (queries waiting for one).",
      labelNames: ["state"] as const,
      registers,
      collect() {
        this.set({ state: "total" }, pool.totalCount);
        this.set({ state: "idle" }, pool.idleCount);
        this.set({ state: "waiting" }, pool.waitingCount);
      },
    });
  }

  const counts: Counts = {
    signIn: (method, outcome) => signIns.inc({ method, outcome }),
    block: (kind) => blocks.inc({ kind }),
    mailQueued: (kind) => mailQueued.inc({ kind }),
    mailSent: () => mailSent.inc(),
    mailFailed: (final) => {
      mailFailed.inc();
      if (final) mailGivenUp.inc();
    },
    tokenIssued: (type) => tokens.inc({ type }),
  };
  return { registry, counts, requests, durations };
}

/**
 * A database question asked by one scrape at a time: a scrape that comes while the last one's is still out (the
 * database is down, its connection attempt hangs) shares it, so scrapes never pile up connections or queries.
 */
function onceAtATime<T>(ask: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= ask().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

/** The answer, or undefined when it failed or took longer than a scrape may wait. */
async function withTimeout<T>(answer: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, SCRAPE_QUERY_TIMEOUT_MS, undefined);
  });
  try {
    return await Promise.race([answer.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
