import { afterAll, beforeAll, expect, it } from "vitest";
import { oidcAdapter } from "../src/oidc/adapter.ts";
import { type Db, migrate, openDatabase } from "../src/store/db.ts";
import { oidcStore } from "../src/store/oidc.ts";
import { describeDatabases, freshPostgres, tempDir } from "./harness.ts";

/** The provider's adapter over our store: the same suite on both databases (ARCHITECTURE.md "storage"). */
describeDatabases([
  ["SQLite", async () => `sqlite:${tempDir()}/oidc.db`],
  ["PostgreSQL", freshPostgres],
])("the provider's store on %s", (_name, url) => {
  let db: Db;
  let gatewaySession: string | null = null;
  const adapter = (model: string) => new (oidcAdapter(db, () => gatewaySession))(model);
  beforeAll(async () => {
    db = openDatabase(await url()).db;
    await migrate(db);
  });
  afterAll(() => db.destroy());

  it("keeps a model's payload exactly, apart from other models with the same id", async () => {
    const payload = { jti: "a1", kind: "AccessToken", grantId: "g1", scope: "openid", nested: { list: [1, "x"] } };
    await adapter("AccessToken").upsert("a1", payload, 60);
    await adapter("RefreshToken").upsert("a1", { jti: "a1", kind: "RefreshToken" }, 60);
    expect(await adapter("AccessToken").find("a1")).toEqual(payload);
    expect(await adapter("RefreshToken").find("a1")).toEqual({ jti: "a1", kind: "RefreshToken" });
    expect(await adapter("AccessToken").find("missing")).toBeUndefined();
  });

  it("updates on a second upsert of the same id", async () => {
    await adapter("Grant").upsert("g2", { jti: "g2", accountId: "u1" }, 60);
    await adapter("Grant").upsert("g2", { jti: "g2", accountId: "u1", openid: { scope: "openid email" } }, 60);
    expect(await adapter("Grant").find("g2")).toEqual({
      jti: "g2",
      accountId: "u1",
      openid: { scope: "openid email" },
    });
  });

  it("marks a consumed code as consumed, with the time, so a second use is recognised", async () => {
    await adapter("AuthorizationCode").upsert("c1", { jti: "c1", grantId: "g3" }, 60);
    await adapter("AuthorizationCode").consume("c1");
    const found = await adapter("AuthorizationCode").find("c1");
    expect(found?.consumed).toEqual(expect.any(Number));
    expect(found?.jti).toBe("c1");
  });

  it("finds sessions by uid and records the gateway session they were saved under", async () => {
    gatewaySession = "gw-1";
    await adapter("Session").upsert("s1", { jti: "s1", uid: "uid-1", accountId: "u1" }, 60);
    gatewaySession = null;
    expect(await adapter("Session").findByUid("uid-1")).toMatchObject({ jti: "s1", accountId: "u1" });
    expect(await oidcStore.gatewaySessionOf(db, "s1")).toBe("gw-1");
    expect((await oidcStore.sessionsOfGateway(db, ["gw-1", "gw-2"])).map((row) => row.id)).toEqual(["s1"]);
    expect(await oidcStore.sessionsOfGateway(db, [])).toEqual([]);
  });

  it("revokes by grant only the model asked, and a whole grant when it ends", async () => {
    await adapter("AccessToken").upsert("t1", { jti: "t1", grantId: "g4" }, 60);
    await adapter("RefreshToken").upsert("r1", { jti: "r1", grantId: "g4" }, 60);
    await adapter("Grant").upsert("g4", { jti: "g4" }, 60);
    await adapter("AccessToken").revokeByGrantId("g4");
    expect(await adapter("AccessToken").find("t1")).toBeUndefined();
    expect(await adapter("RefreshToken").find("r1")).toBeDefined();
    await oidcStore.revokeGrant(db, "g4");
    expect(await adapter("RefreshToken").find("r1")).toBeUndefined();
    expect(await adapter("Grant").find("g4")).toBeUndefined();
  });

  it("destroys a model", async () => {
    await adapter("Interaction").upsert("i1", { jti: "i1" }, 60);
    await adapter("Interaction").destroy("i1");
    expect(await adapter("Interaction").find("i1")).toBeUndefined();
  });

  it("hides rows past their expiry and sweeps them", async () => {
    await adapter("AccessToken").upsert("old", { jti: "old" }, 1);
    await adapter("AccessToken").upsert("live", { jti: "live" }, 3600);
    const later = Date.now() + 2000;
    expect(await oidcStore.find(db, "AccessToken", "id", "old", later)).toBeUndefined();
    expect(await oidcStore.deleteExpired(db, later)).toBeGreaterThanOrEqual(1);
    expect(await oidcStore.find(db, "AccessToken", "id", "old", 0)).toBeUndefined();
    expect(await adapter("AccessToken").find("live")).toEqual({ jti: "live" });
  });
});
