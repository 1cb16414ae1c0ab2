/**
 * The sweeper of another node, for `npm run bench -- --seeded` (issue #28): sweep passes one after another on the
 * gateway's database until this process is stopped, the rows removed, the statements' times and the finished passes
 * written to SWEEP_REPORT as they happen (a pass over a backlog of millions outlasts a round). It calls the sweeper
 * as app.ts does: its `sweep` (packages/server/src/sweeper.ts, batched and paced) where this checkout has one,
 * otherwise the store calls app.ts makes for the rows the seed leaves expired (sessions, codes, OpenID models).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sweepSessions } from "../../packages/server/src/sessions/sessions.ts";
import { codesStore } from "../../packages/server/src/store/codes.ts";
import { type Db, openDatabase } from "../../packages/server/src/store/db.ts";
import { oidcStore } from "../../packages/server/src/store/oidc.ts";

const DAY = 86_400_000;
/** AUDIT_RETENTION_DAYS' default. */
const AUDIT_RETENTION_MS = 400 * DAY;
const PAUSE_MS = 1000;
const SWEEPER = join(import.meta.dirname, "../../packages/server/src/sweeper.ts");

type OnBatch = (kind: string, rows: number, ms: number) => void;
type Pass = (db: Db, now: number, onBatch: OnBatch) => Promise<unknown>;

async function passOf(): Promise<{ pass: Pass; how: string }> {
  if (existsSync(SWEEPER)) {
    // A path held in a variable: a checkout without the module still compiles.
    const module = (await import(SWEEPER)) as {
      sweep: (db: Db, options: { auditRetentionMs: number; onBatch: OnBatch }, now: number) => Promise<unknown>;
    };
    return {
      pass: (db, now, onBatch) => module.sweep(db, { auditRetentionMs: AUDIT_RETENTION_MS, onBatch }, now),
      how: "sweeper.ts",
    };
  }
  const timed = async (kind: string, onBatch: OnBatch, work: Promise<number>) => {
    const started = performance.now();
    onBatch(kind, await work, performance.now() - started);
  };
  return {
    how: "app.ts's store calls (one statement each)",
    pass: (db, now, onBatch) =>
      Promise.all([
        timed("sessions", onBatch, sweepSessions(db, now)),
        timed("codes", onBatch, codesStore.deleteStale(db, now - 30 * DAY)),
        timed("oidc", onBatch, oidcStore.deleteExpired(db, now)),
      ]),
  };
}

const { db } = openDatabase(process.env.DATABASE_URL as string);
const report = process.env.SWEEP_REPORT as string;
const { pass, how } = await passOf();
const startedAt = performance.now();
const totals: Record<string, number> = {};
const passes: number[] = [];
const statements = { count: 0, busyMs: 0, longestMs: 0 };
const write = () =>
  writeFileSync(report, JSON.stringify({ how, totals, passes, statements, ms: performance.now() - startedAt }));
const onBatch: OnBatch = (kind, rows, ms) => {
  totals[kind] = (totals[kind] ?? 0) + rows;
  statements.count++;
  statements.busyMs += ms;
  statements.longestMs = Math.max(statements.longestMs, ms);
  write();
};
let stopping = false;
process.on("SIGTERM", () => {
  stopping = true;
});
while (!stopping) {
  const started = performance.now();
  await pass(db, Date.now(), onBatch);
  passes.push(performance.now() - started);
  write();
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
}
await db.destroy();
