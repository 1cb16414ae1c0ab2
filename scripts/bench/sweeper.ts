/**
 * The sweeper of another node, for `npm run bench -- --seeded` (issue #28): sweep passes one after another on the
 * gateway's database until this process is stopped, each written to SWEEP_REPORT (rows removed, pass times). It
 * calls the sweeper as app.ts does: its `sweep` (packages/server/src/sweeper.ts, batched) where this checkout has
 * one, otherwise the store calls app.ts makes for the rows the seed leaves expired (sessions, codes, OpenID models).
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

type Pass = (db: Db, now: number) => Promise<Record<string, number>>;

async function passOf(): Promise<{ pass: Pass; how: string }> {
  if (existsSync(SWEEPER)) {
    // A path held in a variable: a checkout without the module still compiles.
    const module = (await import(SWEEPER)) as {
      sweep: (db: Db, options: { auditRetentionMs: number }, now: number) => Promise<Record<string, number>>;
    };
    return { pass: (db, now) => module.sweep(db, { auditRetentionMs: AUDIT_RETENTION_MS }, now), how: "sweeper.ts" };
  }
  return {
    how: "app.ts's store calls (one statement each)",
    pass: async (db, now) => {
      const [sessions, codes, oidc] = await Promise.all([
        sweepSessions(db, now),
        codesStore.deleteStale(db, now - 30 * DAY),
        oidcStore.deleteExpired(db, now),
      ]);
      return { sessions, codes, oidc };
    },
  };
}

const { db } = openDatabase(process.env.DATABASE_URL as string);
const report = process.env.SWEEP_REPORT as string;
const { pass, how } = await passOf();
const totals: Record<string, number> = {};
const passes: number[] = [];
let stopping = false;
process.on("SIGTERM", () => {
  stopping = true;
});
while (!stopping) {
  const started = performance.now();
  const removed = await pass(db, Date.now());
  passes.push(performance.now() - started);
  for (const [kind, n] of Object.entries(removed)) totals[kind] = (totals[kind] ?? 0) + n;
  writeFileSync(report, JSON.stringify({ how, totals, passes }));
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
}
await db.destroy();
