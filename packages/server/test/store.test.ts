import { randomUUID } from "node:crypto";
import { TRIALS_PER_ACCOUNT_MAX } from "@gatehouse/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Db } from "../src/store/db.ts";
import { migrate, openDatabase, ping } from "../src/store/db.ts";
import { discourseNoncesStore } from "../src/store/discourse-nonces.ts";
import { externalIdentitiesStore } from "../src/store/external-identities.ts";
import { federationStore } from "../src/store/federation.ts";
import { jobsStore } from "../src/store/jobs.ts";
import { recoveryQuotaStore } from "../src/store/recovery-quota.ts";
import type { UserRow } from "../src/store/schema.ts";
import { sessionLinksStore } from "../src/store/session-links.ts";
import { sessionsStore } from "../src/store/sessions.ts";
import { signInAttemptsStore } from "../src/store/sign-in-attempts.ts";
import { throttleStore } from "../src/store/throttle.ts";
import { trialsStore } from "../src/store/trials.ts";
import { usersStore } from "../src/store/users.ts";
import { describeDatabases, freshPostgres, tempDir } from "./harness.ts";

function user(overrides: Partial<UserRow> = {}): UserRow {
  const email = overrides.email ?? `${randomUUID()}@example.com`;
  return {
    id: randomUUID(),
    email,
    email_normalized: email.toLowerCase(),
    password_hash: "$argon2id$v=19$m=19456,t=2,p=1$x$y",
    first_name: "Ann",
    last_name: "Lee",
    country_code: "DE",
    newsletter: 0,
    status: "active",
    customer_number: null,
    password_allowed: 1,
    required_password_update: 0,
    required_profile_update: 0,
    language: "en",
    brand: "default",
    created_at: 1_700_000_000_000,
    updated_at: 1_700_000_000_000,
    signup_meta: null,
    marketing_info: null,
    email_verified: 1,
    ...overrides,
  };
}

/** One suite, both databases, one migration set (ARCHITECTURE.md "storage"). */
describeDatabases([
  ["SQLite", async () => `sqlite:${tempDir()}/store.db`],
  ["PostgreSQL", freshPostgres],
])("store on %s", (_name, url) => {
  let db: Db;
  /** Kept for a second connection to the same database, as another instance would open. */
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await url();
    db = openDatabase(databaseUrl).db;
    await migrate(db);
    await migrate(db); // idempotent
  });
  afterAll(() => db.destroy());

  it("answers readiness", async () => {
    expect(await ping(db)).toBe(true);
  });

  it("stores and finds users by id and lower-cased address, with exact types", async () => {
    const row = user({ email: "Mixed.Case@Example.com" });
    await usersStore.insert(db, row);
    expect(await usersStore.findByEmail(db, "mixed.case@example.com")).toEqual(row);
    expect(await usersStore.findById(db, row.id)).toEqual(row);
    expect(await usersStore.findByEmail(db, "nobody@example.com")).toBeUndefined();
  });

  it("keeps e-mail addresses unique case-insensitively", async () => {
    const row = user({ email: "dup@example.com" });
    await usersStore.insert(db, row);
    await expect(
      usersStore.insert(db, user({ email: "DUP@example.com", email_normalized: "dup@example.com" })),
    ).rejects.toThrow();
  });

  it("refuses an unknown status", async () => {
    await expect(usersStore.insert(db, user({ status: "zombie" as never }))).rejects.toThrow();
  });

  it("updates and deletes users", async () => {
    const row = user();
    await usersStore.insert(db, row);
    expect(await usersStore.update(db, row.id, { first_name: "Bo", updated_at: 2 })).toBe(true);
    expect((await usersStore.findById(db, row.id))?.first_name).toBe("Bo");
    expect(await usersStore.update(db, randomUUID(), { first_name: "X" })).toBe(false);
    expect(await usersStore.delete(db, row.id)).toBe(true);
    expect(await usersStore.findById(db, row.id)).toBeUndefined();
  });

  it("stores sessions with their user, and a user's deletion removes them", async () => {
    const row = user();
    await usersStore.insert(db, row);
    const session = {
      id: randomUUID().replaceAll("-", ""),
      user_id: row.id,
      created_at: 1,
      last_seen_at: 1,
      expires_at: 10,
      ip: "127.0.0.1",
      user_agent: "test",
      auth_time: 1,
      auth_method: "password" as const,
      idp: null,
      amr: "pwd",
    };
    await sessionsStore.insert(db, session);
    expect(await sessionsStore.findWithUser(db, session.id)).toMatchObject({
      ...session,
      email: row.email,
      status: "active",
    });
    await sessionsStore.touch(db, session.id, 5);
    expect((await sessionsStore.findWithUser(db, session.id))?.last_seen_at).toBe(5);
    await usersStore.delete(db, row.id);
    expect(await sessionsStore.findWithUser(db, session.id)).toBeUndefined();
  });

  it("ends a session with the sessions of its sign-in on other hosts, and takes a link code once, unexpired", async () => {
    const row = user();
    await usersStore.insert(db, row);
    const signInId = randomUUID();
    const base = {
      user_id: row.id,
      created_at: 1,
      last_seen_at: 1,
      expires_at: 10,
      ip: "127.0.0.1",
      user_agent: "test",
      auth_time: 1,
      auth_method: "password" as const,
      idp: null,
      pending_step: null,
    };
    const ids = [randomUUID(), randomUUID(), randomUUID()].map((id) => id.replaceAll("-", ""));
    await sessionsStore.insert(db, { ...base, id: ids[0] as string, sign_in_id: signInId });
    await sessionsStore.insert(db, { ...base, id: ids[1] as string, sign_in_id: signInId, linked: 1 });
    await sessionsStore.insert(db, { ...base, id: ids[2] as string, sign_in_id: randomUUID() });
    expect((await sessionsStore.findWithUser(db, ids[0] as string))?.linked).toBe(0);
    await sessionsStore.markLinked(db, ids[0] as string);
    expect((await sessionsStore.findWithUser(db, ids[0] as string))?.linked).toBe(1);
    // Activity on one session of the sign-in keeps all of them alive, and only them.
    await sessionsStore.touchSignIn(db, signInId, 7);
    expect((await sessionsStore.findWithUser(db, ids[1] as string))?.last_seen_at).toBe(7);
    expect((await sessionsStore.findWithUser(db, ids[2] as string))?.last_seen_at).toBe(1);
    const ended = await sessionsStore.deleteWithLinked(db, ids[0] as string);
    expect(ended.map((session) => session.id).sort()).toEqual([ids[0], ids[1]].sort());
    expect(await sessionsStore.findWithUser(db, ids[2] as string)).toBeDefined();

    const link = { session_id: ids[2] as string, origin: "http://cloud.localhost:8080", state_hash: "s" };
    await sessionLinksStore.insert(db, { ...link, id: "fresh", expires_at: 2_000 });
    await sessionLinksStore.insert(db, { ...link, id: "stale", expires_at: 500 });
    expect(await sessionLinksStore.consume(db, "stale", 1_000)).toBeUndefined();
    expect(await sessionLinksStore.consume(db, "fresh", 1_000)).toMatchObject(link);
    expect(await sessionLinksStore.consume(db, "fresh", 1_000)).toBeUndefined();
    await sessionLinksStore.insert(db, { ...link, id: "old", expires_at: 500 });
    expect(await sessionLinksStore.deleteExpired(db, 1_000)).toBe(1);
    await sessionsStore.delete(db, ids[2] as string);
  });

  it("takes a federation flow once, only for its browser and provider, and keeps one pending answer a browser", async () => {
    const flow = {
      browser: "b1",
      provider: "google",
      nonce: "n",
      code_verifier: "v",
      redirect_uri: "http://localhost:8080/api/federation/google/callback",
      return_to: null,
    };
    await federationStore.insertFlow(db, { ...flow, id: "f1", expires_at: 2_000 });
    expect(await federationStore.consumeFlow(db, "f1", { browser: "b2", provider: "google" }, 1_000)).toBeUndefined();
    expect(await federationStore.consumeFlow(db, "f1", { browser: "b1", provider: "acme" }, 1_000)).toBeUndefined();
    expect(await federationStore.consumeFlow(db, "f1", { browser: "b1", provider: "google" }, 1_000)).toMatchObject(
      flow,
    );
    expect(await federationStore.consumeFlow(db, "f1", { browser: "b1", provider: "google" }, 1_000)).toBeUndefined();
    await federationStore.insertFlow(db, { ...flow, id: "f2", expires_at: 500 });
    expect(await federationStore.consumeFlow(db, "f2", { browser: "b1", provider: "google" }, 1_000)).toBeUndefined();

    const pending = {
      browser: "b1",
      kind: "register" as const,
      provider: "google",
      subject: "s1",
      email: "p@example.com",
      email_verified: 1,
      first_name: "P",
      last_name: "Q",
      full_name: "P Q",
      return_to: null,
      expires_at: 2_000,
    };
    await federationStore.putPending(db, pending);
    await federationStore.putPending(db, { ...pending, kind: "link", subject: "s2" });
    expect(await federationStore.findPending(db, "b1", 1_000)).toMatchObject({ kind: "link", subject: "s2" });
    expect(await federationStore.findPending(db, "b1", 3_000)).toBeUndefined();
    expect(await federationStore.consumePending(db, "b1", 1_000)).toMatchObject({ subject: "s2" });
    expect(await federationStore.consumePending(db, "b1", 1_000)).toBeUndefined();
    await federationStore.putPending(db, { ...pending, browser: "b3", expires_at: 10 });
    expect(await federationStore.deleteExpired(db, 1_000)).toBe(1);
  });

  it("links one identity a provider to an account, and each identity to one account", async () => {
    const a = user();
    const b = user();
    await usersStore.insert(db, a);
    await usersStore.insert(db, b);
    const identity = { provider: "google", subject: "g-1", user_id: a.id, email: null, linked_at: 1 };
    await externalIdentitiesStore.insert(db, identity);
    await expect(externalIdentitiesStore.insert(db, { ...identity, user_id: b.id })).rejects.toThrow();
    await expect(externalIdentitiesStore.insert(db, { ...identity, subject: "g-2" })).rejects.toThrow();
    expect(await externalIdentitiesStore.findForUser(db, a.id, "google")).toEqual(identity);
    expect(await externalIdentitiesStore.deleteForUser(db, a.id, "google")).toBe(true);
    expect(await externalIdentitiesStore.find(db, "google", "g-1")).toBeUndefined();
  });

  it("removes an identity only while another way to sign in stays, even with two removals at once", async () => {
    const row = { ...user(), password_hash: null };
    await usersStore.insert(db, row);
    for (const provider of ["google", "facebook"])
      await externalIdentitiesStore.insert(db, {
        provider,
        subject: `${provider}-1`,
        user_id: row.id,
        email: null,
        linked_at: 1,
      });
    const outcomes = await Promise.all(
      ["google", "facebook"].map((provider) => externalIdentitiesStore.deleteUnlessLast(db, row.id, provider)),
    );
    expect(outcomes.sort()).toEqual(["deleted", "last"]);
    expect(await externalIdentitiesStore.listForUser(db, row.id)).toHaveLength(1);
    expect(await externalIdentitiesStore.deleteUnlessLast(db, row.id, "trimble")).toBe("missing");
  });

  it("sweeps sessions past their lifetime or idle time", async () => {
    const row = user();
    await usersStore.insert(db, row);
    const base = {
      user_id: row.id,
      created_at: 0,
      ip: "",
      user_agent: "",
      auth_time: 0,
      auth_method: "password" as const,
      idp: null,
    };
    await sessionsStore.insert(db, { ...base, id: `live-${row.id}`, last_seen_at: 900, expires_at: 5000 });
    await sessionsStore.insert(db, { ...base, id: `old-${row.id}`, last_seen_at: 900, expires_at: 999 });
    await sessionsStore.insert(db, { ...base, id: `idle-${row.id}`, last_seen_at: 100, expires_at: 5000 });
    const swept = await sessionsStore.deleteExpired(db, 1000, 500);
    expect(swept.map((s) => s.id).sort()).toEqual([`idle-${row.id}`, `old-${row.id}`]);
    expect(swept.every((s) => s.user_id === row.id)).toBe(true);
    expect(await sessionsStore.findWithUser(db, `live-${row.id}`)).toBeDefined();
    expect(await sessionsStore.deleteForUser(db, row.id)).toEqual([{ id: `live-${row.id}`, user_id: row.id }]);
  });

  it("links external identities by (provider, subject), once each, and removes them with their account", async () => {
    const row = user();
    await usersStore.insert(db, row);
    const google = { provider: "google", subject: "1098", user_id: row.id, email: "ann@gmail.example", linked_at: 5 };
    const acme = { provider: "acme", subject: "ann", user_id: row.id, email: null, linked_at: 7 };
    await externalIdentitiesStore.insert(db, google);
    await externalIdentitiesStore.insert(db, acme);
    expect(await externalIdentitiesStore.find(db, "google", "1098")).toEqual(google);
    expect(await externalIdentitiesStore.find(db, "google", "ann")).toBeUndefined();
    expect(await externalIdentitiesStore.listForUser(db, row.id)).toEqual([google, acme]);
    // One subject of one provider names one account, whoever tries to link it again.
    const other = user();
    await usersStore.insert(db, other);
    await expect(externalIdentitiesStore.insert(db, { ...google, user_id: other.id })).rejects.toThrow();
    // The same subject at another provider is another identity.
    await externalIdentitiesStore.insert(db, { ...google, provider: "facebook", user_id: other.id });
    expect(await externalIdentitiesStore.delete(db, "acme", "ann")).toBe(true);
    expect(await externalIdentitiesStore.delete(db, "acme", "ann")).toBe(false);
    await usersStore.delete(db, row.id);
    expect(await externalIdentitiesStore.find(db, "google", "1098")).toBeUndefined();
    expect(await externalIdentitiesStore.find(db, "facebook", "1098")).toMatchObject({ user_id: other.id });
  });

  it("records how a session signed in (method, provider, amr)", async () => {
    const row = user();
    await usersStore.insert(db, row);
    const id = randomUUID().replaceAll("-", "");
    await sessionsStore.insert(db, {
      id,
      user_id: row.id,
      created_at: 1,
      last_seen_at: 900,
      expires_at: 5000,
      ip: "",
      user_agent: "",
      auth_time: 1,
      auth_method: "social",
      idp: "google",
      amr: "fed",
    });
    expect(await sessionsStore.findWithUser(db, id)).toMatchObject({
      auth_method: "social",
      idp: "google",
      amr: "fed",
    });
  });

  it("keeps one sign-in attempt a browser, moved on or taken once and only from the step it owes", async () => {
    const row = user();
    await usersStore.insert(db, row);
    const id = randomUUID().replaceAll("-", "");
    const attempt = {
      id,
      user_id: row.id,
      method: "password" as const,
      idp: null,
      amr: "pwd",
      auth_time: 5,
      owes: "password_change" as const,
      destination: JSON.stringify({ landing: "/profile/edit" }),
      expires_at: 100,
    };
    await signInAttemptsStore.put(db, attempt);
    // A new proof in the same browser replaces the attempt it had.
    await signInAttemptsStore.put(db, { ...attempt, auth_time: 6 });
    expect(await signInAttemptsStore.find(db, id, 50)).toMatchObject({ auth_time: 6, owes: "password_change" });
    expect(await signInAttemptsStore.find(db, id, 100)).toBeUndefined();
    // Two requests finishing the same step: one moves it on.
    const moves = await Promise.all([
      signInAttemptsStore.advance(db, id, "password_change", "profile_update"),
      signInAttemptsStore.advance(db, id, "password_change", "profile_update"),
    ]);
    expect(moves.filter(Boolean)).toHaveLength(1);
    expect(await signInAttemptsStore.take(db, id, "password_change", 50)).toBeUndefined();
    const takes = await Promise.all([
      signInAttemptsStore.take(db, id, "profile_update", 50),
      signInAttemptsStore.take(db, id, "profile_update", 50),
    ]);
    expect(takes.filter(Boolean)).toHaveLength(1);
    expect(await signInAttemptsStore.find(db, id, 50)).toBeUndefined();
    await signInAttemptsStore.put(db, { ...attempt, expires_at: 10 });
    expect(await signInAttemptsStore.deleteExpired(db, 10)).toBe(1);
  });

  const RULE = { threshold: 5, windowMs: 1000 };
  const allowance = (scope: "account" | "device" = "account", accountKey = randomUUID()) => ({
    scope,
    key: randomUUID(),
    accountKey,
  });

  it("numbers concurrent password attempts atomically, from two connections to the same database", async () => {
    const other = openDatabase(databaseUrl).db;
    try {
      const counted = allowance();
      const numbers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => throttleStore.claim(i % 2 ? db : other, counted, 10, RULE)),
      );
      expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    } finally {
      await other.destroy();
    }
  });

  it("arms the block with the attempt that reaches the threshold, never extends it, and starts afresh after it", async () => {
    const counted = allowance();
    for (let i = 1; i < RULE.threshold; i++) await throttleStore.claim(db, counted, 100, RULE);
    expect((await throttleStore.find(db, counted))?.blocked_until).toBeNull();
    expect(await throttleStore.claim(db, counted, 200, RULE)).toBe(RULE.threshold);
    expect((await throttleStore.find(db, counted))?.blocked_until).toBe(200 + RULE.windowMs);
    expect(await throttleStore.claim(db, counted, 900, RULE)).toBe(RULE.threshold + 1);
    expect((await throttleStore.find(db, counted))?.blocked_until).toBe(200 + RULE.windowMs);
    expect(await throttleStore.claim(db, counted, 200 + RULE.windowMs, RULE)).toBe(1);
    expect((await throttleStore.find(db, counted))?.blocked_until).toBeNull();
  });

  it("keeps each scope in its own key space, and clears an account with its devices", async () => {
    const account = randomUUID();
    const shared = { scope: "account" as const, key: account, accountKey: account };
    const device = { scope: "device" as const, key: account, accountKey: account };
    const elsewhere = allowance("device");
    await throttleStore.claim(db, shared, 1, RULE);
    await throttleStore.claim(db, shared, 1, RULE);
    expect(await throttleStore.claim(db, device, 1, RULE)).toBe(1);
    await throttleStore.claim(db, elsewhere, 1, RULE);
    await throttleStore.clear(db, device);
    expect((await throttleStore.find(db, shared))?.attempts).toBe(2);
    await throttleStore.claim(db, device, 1, RULE);
    await throttleStore.clearAccount(db, account);
    expect(await throttleStore.find(db, shared)).toBeUndefined();
    expect(await throttleStore.find(db, device)).toBeUndefined();
    expect(await throttleStore.find(db, elsewhere)).toBeDefined();
  });

  it("sweeps stale attempt counts but keeps a running block", async () => {
    const stale = allowance();
    const blocked = allowance();
    await throttleStore.claim(db, stale, 10, RULE);
    for (let i = 0; i < RULE.threshold; i++) await throttleStore.claim(db, blocked, 10, { ...RULE, windowMs: 10_000 });
    expect(await throttleStore.deleteStale(db, 11, 20)).toBeGreaterThanOrEqual(1);
    expect(await throttleStore.find(db, stale)).toBeUndefined();
    expect(await throttleStore.find(db, blocked)).toBeDefined();
  });

  it("counts recovery mails in fixed windows, atomically and apart from password attempts", async () => {
    const key = randomUUID();
    const counts = await Promise.all(Array.from({ length: 6 }, () => recoveryQuotaStore.count(db, key, 1000, 500)));
    expect(counts.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await throttleStore.find(db, { scope: "account", key })).toBeUndefined();
    expect(await recoveryQuotaStore.count(db, key, 1499, 500)).toBe(7);
    expect(await recoveryQuotaStore.count(db, key, 1500, 500)).toBe(1);
    expect(await recoveryQuotaStore.deleteEnded(db, 2000)).toBeGreaterThanOrEqual(1);
    await recoveryQuotaStore.count(db, key, 3000, 500);
    await recoveryQuotaStore.clear(db, key);
    expect(await recoveryQuotaStore.count(db, key, 3000, 500)).toBe(1);
  });

  it("starts a product's trial once and caps an account's trials, settled in the database across connections", async () => {
    const person = user();
    await usersStore.insert(db, person);
    // A second SQLite connection in this process would wait synchronously for the first one's open transaction (and
    // lock the event loop that would finish it): a server holds one SQLite connection, so SQLite races on one here.
    const sqlite = databaseUrl.startsWith("sqlite:");
    const other = sqlite ? db : openDatabase(databaseUrl).db;
    try {
      const row = (product_code: string, started_at = 1000) => ({
        user_id: person.id,
        product_code,
        brand: "cloud",
        started_at,
      });
      // The same product from two connections at once: one start wins, the other reads the winner's row.
      const same = await Promise.all([
        trialsStore.start(db, row("RENDER", 1000)),
        trialsStore.start(other, row("RENDER", 2000)),
        trialsStore.start(db, row("RENDER", 3000)),
      ]);
      expect(same.map((s) => s.outcome).sort()).toEqual(["existing", "existing", "started"]);
      const winner = same.find((s) => s.outcome === "started");
      for (const s of same)
        expect(s.outcome !== "limit" && s.trial.started_at).toBe(
          winner?.outcome === "started" && winner.trial.started_at,
        );
      // Many products at once from two connections: never more than the cap.
      const many = await Promise.all(
        Array.from({ length: TRIALS_PER_ACCOUNT_MAX + 5 }, (_, i) =>
          trialsStore.start(i % 2 ? db : other, row(`P${i}`)),
        ),
      );
      expect(many.filter((s) => s.outcome === "started")).toHaveLength(TRIALS_PER_ACCOUNT_MAX - 1);
      expect(many.filter((s) => s.outcome === "limit")).toHaveLength(6);
      expect(await trialsStore.listForUser(db, person.id)).toHaveLength(TRIALS_PER_ACCOUNT_MAX);
      expect(await trialsStore.list(db, { email: person.email, productCode: "RENDER", limit: 10 })).toEqual([
        {
          email: person.email,
          product_code: "RENDER",
          brand: "cloud",
          started_at: winner?.outcome === "started" ? winner.trial.started_at : -1,
        },
      ]);
      // The trials go with their account.
      await usersStore.delete(db, person.id);
      expect(await trialsStore.listForUser(db, person.id)).toEqual([]);
    } finally {
      if (!sqlite) await other.destroy();
    }
  });

  it("answers a DiscourseConnect nonce once, also from two connections racing, and again only once it expired", async () => {
    const hash = randomUUID().replace(/-/gu, "").padEnd(64, "0");
    // See the trials test: two SQLite connections in one process would deadlock, so SQLite races on one.
    const sqlite = databaseUrl.startsWith("sqlite:");
    const other = sqlite ? db : openDatabase(databaseUrl).db;
    try {
      const raced = await Promise.all(
        Array.from({ length: 8 }, (_, i) => discourseNoncesStore.use(i % 2 ? db : other, hash, 1000, 5000)),
      );
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await discourseNoncesStore.use(db, hash, 4999, 9000)).toBe(false);
      // Past its day the row is forgotten: the sweeper removes it, and a late use replaces it (once).
      expect(await discourseNoncesStore.use(db, hash, 5000, 9000)).toBe(true);
      expect(await discourseNoncesStore.use(db, hash, 5001, 9000)).toBe(false);
      expect(await discourseNoncesStore.deleteExpired(db, 9000)).toBeGreaterThanOrEqual(1);
      expect(await discourseNoncesStore.use(db, hash, 9001, 12000)).toBe(true);
    } finally {
      if (!sqlite) await other.destroy();
    }
  });

  it("leases a job to one worker at a time, retries it later, and keeps it until done", async () => {
    const id = randomUUID();
    await jobsStore.insert(db, {
      id,
      kind: "test",
      payload: "{}",
      status: "pending",
      attempts: 0,
      next_attempt_at: 1000,
      claimed_until: null,
      lease_token: null,
      last_error: null,
      created_at: 1000,
      done_at: null,
    });
    const sqlite = databaseUrl.startsWith("sqlite:");
    const other = sqlite ? db : openDatabase(databaseUrl).db;
    try {
      expect((await jobsStore.due(db, 1000, 100)).map((j) => j.id)).toContain(id);
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) => jobsStore.claim(i % 2 ? db : other, id, 1000, 61_000, `token-${i}`)),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      const token = `token-${claims.indexOf(true)}`;
      expect((await jobsStore.due(db, 2000, 100)).map((j) => j.id)).not.toContain(id);
      // Only the lease's holder finishes it: another lease's token (a lapsed one, a guess) changes nothing.
      expect(await jobsStore.markRetry(db, id, "stale", 1, 5000, "stale", false)).toBe(false);
      expect(await jobsStore.markDone(db, id, 2000, "stale")).toBe(false);
      expect(await jobsStore.markRetry(db, id, token, 1, 5000, "forum down", false)).toBe(true);
      // Not due yet, and a claim that read the row before this try (attempts 0) is not this row any more.
      expect(await jobsStore.claim(db, id, 4999, 64_999, "early")).toBe(false);
      expect(await jobsStore.claim(db, id, 5000, 65_000, "stale-read", 0)).toBe(false);
      expect((await jobsStore.due(db, 4999, 100)).map((j) => j.id)).not.toContain(id);
      expect((await jobsStore.due(db, 5000, 100)).find((j) => j.id === id)).toMatchObject({
        attempts: 1,
        last_error: "forum down",
      });
      expect(await jobsStore.claim(db, id, 5000, 65_000, "second", 1)).toBe(true);
      expect(await jobsStore.markDone(db, id, 5001, "second")).toBe(true);
      // A late worker's failure does not reopen a finished job.
      expect(await jobsStore.markRetry(db, id, "second", 2, 9000, "late", false)).toBe(false);
      expect(await jobsStore.claim(db, id, 100_000, 160_000, "third")).toBe(false);
      expect((await jobsStore.list(db, "test")).find((j) => j.id === id)).toMatchObject({
        status: "done",
        done_at: 5001,
      });
    } finally {
      if (!sqlite) await other.destroy();
    }
  });
});
