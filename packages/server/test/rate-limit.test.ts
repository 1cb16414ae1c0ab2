import { RATE_LIMITS } from "@gatehouse/contract";
import { afterAll, expect, it } from "vitest";
import { rateLimitsStore } from "../src/store/rate-limits.ts";
import { describeDatabases, freshPostgres, startServer, type TestServer, tempDir } from "./harness.ts";

const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function start(databaseUrl: string) {
  const server = await startServer({ databaseUrl, env: { TRUST_PROXY: "true" } });
  servers.push(server);
  return server;
}

const challenge = (server: TestServer, address: string) =>
  fetch(`${server.url}/api/captcha/challenge`, { headers: { "x-forwarded-for": address } });

describeDatabases([
  ["SQLite", async () => `sqlite:${tempDir()}/shared.db`],
  ["PostgreSQL", freshPostgres],
])("per-address rate limits on %s", (_name, url) => {
  it("are counted once for every instance on the database, and survive a restart", async () => {
    const databaseUrl = await url();
    const [a, b] = [await start(databaseUrl), await start(databaseUrl)];
    const { max } = RATE_LIMITS.captcha;
    for (let i = 0; i < max - 1; i++) expect((await challenge(i % 2 ? a : b, "203.0.113.5")).status).toBe(200);
    // A restarted instance still knows the count.
    await a.close();
    const c = await start(databaseUrl);
    expect((await challenge(c, "203.0.113.5")).status).toBe(200);
    const limited = await challenge(b, "203.0.113.5");
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error_code: string }).error_code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address, and another limited call, count apart.
    expect((await challenge(c, "203.0.113.6")).status).toBe(200);
    expect(
      (
        await fetch(`${c.url}/api/captcha/generate`, {
          headers: { "x-forwarded-for": "203.0.113.5", "cf-ipcountry": "CN" },
        })
      ).status,
    ).toBe(200);
    // Rows hold hashes, never the client's address.
    const rows = await c.app.db.selectFrom("rate_limits").selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain("203.0.113");
  });

  it("opens a new window when the last one has ended, atomically under concurrency", async () => {
    const server = await start(await url());
    const db = server.app.db;
    const hits = await Promise.all(Array.from({ length: 10 }, () => rateLimitsStore.hit(db, "k", 1_000, 500)));
    expect(hits.map((h) => h.hits).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(hits.every((h) => h.windowEnds === 1_500)).toBe(true);
    expect(await rateLimitsStore.hit(db, "k", 1_499, 500)).toEqual({ hits: 11, windowEnds: 1_500 });
    expect(await rateLimitsStore.hit(db, "k", 1_500, 500)).toEqual({ hits: 1, windowEnds: 2_000 });
    await rateLimitsStore.deleteStale(db, 2_000);
    expect(await db.selectFrom("rate_limits").selectAll().where("key", "=", "k").execute()).toEqual([]);
  });
});
