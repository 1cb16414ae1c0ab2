import { DELETION_TTL_MS, PASSWORD_RESET_TTL_MS, PASSWORD_SETUP_TTL_MS } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAccount } from "../src/accounts/deletion.ts";
import { verifyPassword } from "../src/accounts/passwords.ts";
import { resetPassword, setupPassword } from "../src/accounts/recovery.ts";
import { createUser } from "../src/accounts/users.ts";
import { codeStatus, issueCode } from "../src/codes/codes.ts";
import { newRecoveryCodes } from "../src/factors/recovery-codes.ts";
import { checkCode } from "../src/factors/second-factor.ts";
import type { MailSite } from "../src/mail/links.ts";
import { type Db, migrate, openDatabase } from "../src/store/db.ts";
import { usersStore } from "../src/store/users.ts";
import { describeDatabases, freshPostgres, tempDir } from "./harness.ts";
import { REFUSED, type Refusal, refuseWrites } from "./refuse-writes.ts";

/**
 * Issue #28: reset, set-up and deletion spend their code in the transaction that does the work (the password hashed
 * before it). A failure after the spend, inside that transaction, leaves the link unused and the work undone; two
 * submits of one link at once spend it once.
 */
const OLD = "Granite-Kettle-58";
const NEW = "Copper-Lantern-91!";
const site: MailSite = { brand: "default", origin: "http://localhost:8080" };

describeDatabases([
  ["SQLite", async () => `sqlite:${tempDir()}/spend.db`],
  ["PostgreSQL", freshPostgres],
])("codes spent in the work's transaction on %s", (_name, url) => {
  let db: Db;
  let n = 0;

  beforeAll(async () => {
    const databaseUrl = await url();
    db = openDatabase(databaseUrl).db;
    await migrate(db);
  });
  afterAll(() => db.destroy());

  const person = (password: string | undefined = OLD) =>
    createUser(db, {
      email: `spend${++n}@example.com`,
      password: password ?? OLD,
      firstName: "Pat",
      lastName: "Lee",
      countryCode: "DE",
    });

  /** Fails the statement doing the work, after the code's spend in the same transaction. */
  async function failing(refusal: Refusal, work: () => Promise<unknown>): Promise<void> {
    const restore = await refuseWrites(db, refusal);
    try {
      await expect(work()).rejects.toThrow(REFUSED);
    } finally {
      await restore();
    }
  }

  const passwordOf = async (id: string) => (await usersStore.findById(db, id))?.password_hash as string;

  it("reset: a failure after the spend leaves the link unused and the old password; then it works once", async () => {
    // Guard: spendCode inside loseAccess's transaction. Checked: with the code spent before the transaction (as
    // before issue #28), the link was "used" after the failure and the password still the old one.
    const user = await person();
    const code = await issueCode(db, user.id, "password_reset", PASSWORD_RESET_TTL_MS);
    await failing({ table: "users", event: "update of password_hash" }, () => resetPassword(db, code, NEW, site));
    expect(await codeStatus(db, code, "password_reset")).toBe("valid");
    expect(await verifyPassword(await passwordOf(user.id), OLD)).toBe(true);

    const [first, second] = await Promise.all([resetPassword(db, code, NEW, site), resetPassword(db, code, NEW, site)]);
    expect([first.ok, second.ok].sort()).toEqual([false, true]);
    expect([first, second].find((answer) => !answer.ok)).toEqual({ ok: false, refusal: "code_used" });
    expect(await codeStatus(db, code, "password_reset")).toBe("used");
    expect(await verifyPassword(await passwordOf(user.id), NEW)).toBe(true);
  });

  it("set-up: a failure after the spend leaves the link unused and no password; then it works once", async () => {
    const user = await person();
    await usersStore.update(db, user.id, { password_hash: null, status: "pending" });
    const code = await issueCode(db, user.id, "password_setup", PASSWORD_SETUP_TTL_MS);
    await failing({ table: "users", event: "update of password_hash" }, () => setupPassword(db, code, NEW, undefined));
    expect(await codeStatus(db, code, "password_setup")).toBe("valid");
    expect(await usersStore.findById(db, user.id)).toMatchObject({ password_hash: null, status: "pending" });

    const answers = await Promise.all([
      setupPassword(db, code, NEW, undefined),
      setupPassword(db, code, NEW, undefined),
    ]);
    expect(answers.filter((answer) => answer.ok)).toHaveLength(1);
    expect(await codeStatus(db, code, "password_setup")).toBe("used");
    expect(await usersStore.findById(db, user.id)).toMatchObject({ status: "active" });
  });

  it("deletion: a failure after the spend leaves the link unused and the account; then it deletes once", async () => {
    const user = await person();
    const code = await issueCode(db, user.id, "deletion", DELETION_TTL_MS);
    await failing({ table: "users", event: "delete" }, () => deleteAccount(db, code, site));
    expect(await codeStatus(db, code, "deletion")).toBe("valid");
    expect(await usersStore.findById(db, user.id)).toBeDefined();

    const answers = await Promise.all([deleteAccount(db, code, site), deleteAccount(db, code, site)]);
    expect(answers.filter((answer) => answer.ok)).toHaveLength(1);
    expect(await usersStore.findById(db, user.id)).toBeUndefined();
    // One farewell mail: the losing submit queued nothing.
    const farewells = await db
      .selectFrom("outbox")
      .select("id")
      .where("recipient", "=", user.email)
      .where("kind", "=", "account_deleted")
      .execute();
    expect(farewells).toHaveLength(1);
  });

  it("refuses an unknown link, and a second submit after the first answers code_used", async () => {
    const user = await person();
    const code = await issueCode(db, user.id, "password_reset", PASSWORD_RESET_TTL_MS);
    expect(await resetPassword(db, "not-a-code", NEW, site)).toEqual({ ok: false, refusal: "code_invalid" });
    expect(await resetPassword(db, code, NEW, site)).toMatchObject({ ok: true });
    expect(await resetPassword(db, code, "Another-Lantern-92!", site)).toEqual({ ok: false, refusal: "code_used" });
    expect(await verifyPassword(await passwordOf(user.id), NEW)).toBe(true);
  });

  describe.each([
    ["its notice", { table: "outbox", event: "insert" }],
    ["its line of the audit trail", { table: "audit", event: "insert" }],
  ] as const)("a recovery code's spend and %s are one", (_what, refusal) => {
    it("a failure writing it leaves the code unspent; then the code is spent once, with both", async () => {
      // Guard: spendNoticed's transaction (factors/second-factor.ts). Checked: with the notice queued after the spend
      // (as before issue #28), the code was spent and no mail queued after the failure; with the audit written by
      // the route after the spend, the code was spent and the trail had no line.
      const user = await person();
      const secret = "test-secret-that-is-long-enough-123456";
      const [code] = await newRecoveryCodes(db, secret, user.id);
      const client = { ip: "192.0.2.7", userAgent: "Firefox", country: "FR" };
      const check = () =>
        checkCode(db, {
          user,
          method: "recovery_code",
          code: code as string,
          sessionSecret: secret,
          source: { client },
          noticeSite: site,
        });
      await failing(refusal, check);
      const notices = () =>
        db
          .selectFrom("outbox")
          .select("id")
          .where("user_id", "=", user.id)
          .where("kind", "=", "recovery_code_used")
          .execute();
      const trail = () =>
        db
          .selectFrom("audit")
          .select(["ip", "country", "detail"])
          .where("user_id", "=", user.id)
          .where("event", "=", "recovery_code_used")
          .execute();
      expect(await notices()).toEqual([]);
      expect(await trail()).toEqual([]);
      expect(await check()).toMatchObject({ ok: true, recoveryCodesLeft: 9 });
      expect(await notices()).toHaveLength(1);
      expect(await trail()).toEqual([{ ip: "192.0.2.7", country: "FR", detail: "9 left" }]);
      expect(await check()).toMatchObject({ ok: false });
    });
  });
});
