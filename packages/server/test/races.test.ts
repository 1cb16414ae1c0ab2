import { randomUUID } from "node:crypto";
import {
  ACTIVATION_TTL_MS,
  DELETION_TTL_MS,
  LOCKOUT_THRESHOLD,
  PASSWORD_RESET_TTL_MS,
  RECOVERY_MAILS_PER_ADDRESS,
} from "@gatehouse/contract";
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import { describe, expect, it } from "vitest";
import { activateAccount } from "../src/accounts/activation.ts";
import { deleteAccount } from "../src/accounts/deletion.ts";
import { addressKey } from "../src/accounts/identifiers.ts";
import { verifyPassword } from "../src/accounts/passwords.ts";
import { requestRecovery, resetPassword } from "../src/accounts/recovery.ts";
import { sendActivation } from "../src/accounts/registration.ts";
import { guardedCheck } from "../src/accounts/throttle.ts";
import { createUser, insertAccount } from "../src/accounts/users.ts";
import { checkHuman, siteverify } from "../src/captcha/human.ts";
import { generateCaptcha, testAnswers } from "../src/captcha/image.ts";
import { proofOfWork } from "../src/captcha/proof-of-work.ts";
import { issueCode } from "../src/codes/codes.ts";
import { databaseRateLimitStore } from "../src/http/rate-limit.ts";
import type { MailSite } from "../src/mail/links.ts";
import { issueLinkCode, redeemLinkCode } from "../src/sessions/links.ts";
import { openSession } from "../src/sessions/sessions.ts";
import type { Db } from "../src/store/db.ts";
import { federationStore } from "../src/store/federation.ts";
import { recoveryQuotaStore } from "../src/store/recovery-quota.ts";
import { throttleStore } from "../src/store/throttle.ts";
import { NODES, oneToN, together, useMigratedNodes } from "./pools.ts";
import { FakeSiteverify } from "./siteverify.ts";

/**
 * Issue #14, "races are settled by the database": several nodes on one real PostgreSQL, each node a connection pool
 * of its own (what a second process would open), making the same move at the same moment, several times over. Each
 * test names the guard it proves and how it was seen to fail without it. The HTTP races (two apps on one database)
 * are in races-http.test.ts, the queues in races-queues.test.ts, a start on an empty database in
 * races-startup.test.ts; the store suite (store.test.ts) proves each statement's atomicity from two connections, and
 * throttle-race.test.ts the sign-in lock through two apps; these add many nodes and the domain functions.
 */
const ROUNDS = 5;
const SECRET = "test-secret-that-is-long-enough-123456";
const SITE: MailSite = { brand: "default", origin: "http://localhost:8080" };
const CLIENT = { ip: "198.51.100.7", userAgent: "race" };
const ascending = (values: number[]) => [...values].sort((a, b) => a - b);

describe("races between nodes, settled by PostgreSQL", () => {
  const nodes = useMigratedNodes();

  const db = () => nodes[0] as Db;
  const person = (status: "pending" | "active" = "active") =>
    createUser(db(), { email: `${randomUUID()}@example.com`, password: "Granite-Kettle-58", status });

  it("one address signed up for on every node at once: one account, one activation mail, the others told it is taken", async () => {
    // Guard: the unique index on the lower-cased address decides, inside the transaction that queues the mail
    // (insertAccount); a loser finds the winner's row and answers "taken", never a server error. Checked: with the
    // index dropped, all 12 made an account (the look-up before the insert saw none of the others).
    const ATTEMPTS = 12;
    const origin = { language: "en", site: SITE, returnTo: undefined };
    for (let round = 0; round < ROUNDS; round++) {
      const email = `${randomUUID()}@example.com`;
      const outcomes = await together(nodes, ATTEMPTS, (node, i) =>
        insertAccount(
          node,
          {
            email: i % 2 ? email : email.toUpperCase(),
            passwordHash: null,
            status: "pending",
            language: "en",
            brand: "default",
          },
          (trx, row) => sendActivation(trx, row, origin),
        ),
      );
      const accounts = outcomes.filter((user) => user !== undefined);
      expect(accounts).toHaveLength(1);
      const mails = await db()
        .selectFrom("outbox")
        .select("id")
        .where("user_id", "=", accounts[0]?.id ?? "")
        .where("kind", "=", "activation")
        .execute();
      expect(mails).toHaveLength(1);
    }
  });

  describe("a mailed code used at the same moment on every node works once", () => {
    // Guard: codesStore.markUsed's `where used_at is null` (one conditional update). Checked: with that condition
    // removed, 5 to 11 of the 12 attempts went through (11 activations, 6 new passwords, 5 deletions).
    const ATTEMPTS = 12;

    it("activation", async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const user = await person("pending");
        const code = await issueCode(db(), user.id, "activation", ACTIVATION_TTL_MS);
        const outcomes = await together(nodes, ATTEMPTS, (node) => activateAccount(node, code, undefined));
        expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
        // Every other attempt finds the link used and its account active (issue #25).
        expect(outcomes.filter((o) => !o.ok && o.refusal === "account_already_active")).toHaveLength(ATTEMPTS - 1);
      }
    });

    it("password reset: one new password, one notice", async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const user = await person();
        const code = await issueCode(db(), user.id, "password_reset", PASSWORD_RESET_TTL_MS);
        const passwords = Array.from({ length: ATTEMPTS }, (_, i) => `Quartz-Lantern-${round}${i}-Fjord`);
        const outcomes = await together(nodes, ATTEMPTS, (node, i) =>
          resetPassword(node, code, passwords[i] as string, SITE),
        );
        const winners = outcomes.flatMap((o, i) => (o.ok ? [passwords[i] as string] : []));
        expect(winners).toHaveLength(1);
        const stored = await db()
          .selectFrom("users")
          .select("password_hash")
          .where("id", "=", user.id)
          .executeTakeFirst();
        expect(await verifyPassword(stored?.password_hash ?? "", winners[0] as string)).toBe(true);
        const notices = await db()
          .selectFrom("outbox")
          .select("id")
          .where("user_id", "=", user.id)
          .where("kind", "=", "password_changed")
          .execute();
        expect(notices).toHaveLength(1);
      }
    });

    it("account deletion: deleted once, one farewell mail", async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const user = await person();
        const code = await issueCode(db(), user.id, "deletion", DELETION_TTL_MS);
        const outcomes = await together(nodes, ATTEMPTS, (node) => deleteAccount(node, code, SITE));
        expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
        const farewells = await db()
          .selectFrom("outbox")
          .select("id")
          .where("recipient", "=", user.email)
          .where("kind", "=", "account_deleted")
          .execute();
        expect(farewells).toHaveLength(1);
      }
    });

    it("links asked for at the same moment: one stays open, as when asked one after the other", async () => {
      // Guard: issueCode takes the account's row (usersStore.lock) before it retires the open links. Checked: without
      // it, all 3 links stayed open (each retired what it saw, then inserted its own).
      for (let round = 0; round < ROUNDS; round++) {
        const user = await person();
        const origin = { language: "en", site: SITE, returnTo: undefined };
        await together(nodes, RECOVERY_MAILS_PER_ADDRESS.max, (node) => requestRecovery(node, user.email, origin));
        const codes = await db().selectFrom("codes").selectAll().where("user_id", "=", user.id).execute();
        expect(codes).toHaveLength(RECOVERY_MAILS_PER_ADDRESS.max);
        expect(codes.filter((code) => code.superseded_at === null)).toHaveLength(1);
      }
    });

    it("linked-session code: one session on the receiving host", async () => {
      // Guard: sessionLinksStore.consume deletes the row as it reads it (`delete … returning`). Checked: with a
      // select then a delete there, all 12 redemptions opened a session.
      const origin = "http://cloud.localhost:8080";
      for (let round = 0; round < ROUNDS; round++) {
        const user = await person();
        const token = await openSession(
          db(),
          { userId: user.id, method: "password", amr: ["pwd"], authTime: Date.now() },
          CLIENT,
        );
        const giver = await db().selectFrom("sessions").selectAll().where("user_id", "=", user.id).executeTakeFirst();
        const state = randomUUID();
        const code = await issueLinkCode(db(), { id: giver?.id ?? "" }, origin, state);
        const outcomes = await together(nodes, ATTEMPTS, (node) =>
          redeemLinkCode(node, {
            code,
            origin,
            state,
            receiverIsCentral: false,
            giverIsCentral: true,
            client: CLIENT,
            replacing: undefined,
            current: undefined,
          }),
        );
        expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
        const sessions = await db().selectFrom("sessions").select("id").where("user_id", "=", user.id).execute();
        expect(sessions).toHaveLength(2);
        expect(token).toBeTruthy();
      }
    });
  });

  describe("a human check is spent once, whichever node sees it", () => {
    const ATTEMPTS = 12;

    it("the CN image captcha: one right answer passes once", async () => {
      // Guard: captchasStore.take answers only when its own delete removed the row. Checked: answering the row it
      // read, whatever the delete did, let 11 of the 12 through.
      for (let round = 0; round < ROUNDS; round++) {
        const { id } = await generateCaptcha(db(), { keepAnswerForTests: true });
        const answer = testAnswers.get(id);
        const outcomes = await together(nodes, ATTEMPTS, (node) =>
          checkHuman(
            node,
            { country: "CN", captchaGUID: id, captchaAnswer: answer },
            { proofOfWork: proofOfWork(SECRET), remote: undefined },
            CLIENT.ip,
          ),
        );
        expect(outcomes.filter((o) => o === undefined)).toHaveLength(1);
        expect(outcomes.filter((o) => o === "captcha_incorrect")).toHaveLength(ATTEMPTS - 1);
      }
    });

    it("a proof of work, solved once and sent to every node: accepted once", async () => {
      // Guard: the spent-token insert (`on conflict do nothing`, counted). Each node builds its own checker from the
      // shared secret, as each process does; checked: without the spent-token record all 12 passed.
      const checkers = nodes.map(() => proofOfWork(SECRET, { min: 50, max: 500 }));
      for (let round = 0; round < ROUNDS; round++) {
        const challenge = await (checkers[round % NODES] as ReturnType<typeof proofOfWork>).challenge();
        const solution = await solveChallenge({ challenge, deriveKey });
        const token = Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
        const outcomes = await together(nodes, ATTEMPTS, (node, i) =>
          checkHuman(
            node,
            { country: "DE", botCheck: token },
            { proofOfWork: checkers[i % NODES] as ReturnType<typeof proofOfWork>, remote: undefined },
            CLIENT.ip,
          ),
        );
        expect(outcomes.filter((o) => o === undefined)).toHaveLength(1);
        expect(outcomes.filter((o) => o === "bot_check_failed")).toHaveLength(ATTEMPTS - 1);
      }
    });
    it("a Turnstile or reCAPTCHA token its provider keeps accepting: passes once", async () => {
      // Guard: our own spent-token record (captcha/human.ts), whatever the provider does with replays. Checked: without
      // it, all 12 passed.
      const provider = await new FakeSiteverify(() => true).start();
      try {
        const remote = siteverify(provider.url, "secret");
        for (let round = 0; round < ROUNDS; round++) {
          const botCheck = randomUUID();
          const outcomes = await together(nodes, ATTEMPTS, (node) =>
            checkHuman(node, { country: "DE", botCheck }, { proofOfWork: proofOfWork(SECRET), remote }, CLIENT.ip),
          );
          expect(outcomes.filter((o) => o === undefined)).toHaveLength(1);
        }
      } finally {
        await provider.stop();
      }
    });
  });

  describe("counters lose no increment when every node counts at once", () => {
    const INCREMENTS = 200;

    it("the per-address rate limit (the @fastify/rate-limit store)", async () => {
      // Guard: rateLimitsStore.hit is one upsert (`on conflict do update … hits + 1`). Checked: a read then a write
      // lost increments (the 200 answers were not 1 to 200).
      const stores = nodes.map((node) => {
        const Store = databaseRateLimitStore(node);
        return new Store({ routeInfo: { method: "POST", url: "/api/race" } });
      });
      for (let round = 0; round < ROUNDS; round++) {
        const address = `203.0.113.${round}`;
        const counts = await Promise.all(
          Array.from({ length: INCREMENTS }, (_, i) => {
            const store = stores[i % NODES] as InstanceType<ReturnType<typeof databaseRateLimitStore>>;
            return new Promise<number>((resolve, reject) =>
              store.incr(address, (error, result) => (result ? resolve(result.current) : reject(error)), 60_000),
            );
          }),
        );
        expect(ascending(counts)).toEqual(oneToN(INCREMENTS));
      }
    });

    it("the sign-in failure counter: every attempt counted, the threshold's worth verified, one lockout", async () => {
      // Guard: throttleStore.claim numbers each attempt in one upsert before any password is verified. Checked: a
      // read then a write verified 12 passwords instead of 5.
      for (let round = 0; round < ROUNDS; round++) {
        const user = await person();
        let verified = 0;
        const wrong = async () => {
          verified++;
          return { matches: false } as const;
        };
        const outcomes = await together(nodes, INCREMENTS, (node) =>
          guardedCheck(node, user.email, { client: CLIENT }, wrong, user.id),
        );
        expect(verified).toBe(LOCKOUT_THRESHOLD);
        expect(outcomes.filter((o) => o.status === "mismatch")).toHaveLength(LOCKOUT_THRESHOLD - 1);
        const row = await throttleStore.find(db(), { scope: "account", key: addressKey(user.email) });
        expect(row?.attempts).toBe(INCREMENTS);
        const lockouts = await db()
          .selectFrom("audit")
          .select("id")
          .where("user_id", "=", user.id)
          .where("event", "=", "lockout")
          .execute();
        expect(lockouts).toHaveLength(1);
      }
    });

    it("the recovery-mail quota", async () => {
      // Guard: recoveryQuotaStore.count is one upsert. Checked: a read then a write lost increments.
      for (let round = 0; round < ROUNDS; round++) {
        const key = randomUUID();
        const counts = await together(nodes, INCREMENTS, (node) =>
          recoveryQuotaStore.count(node, key, Date.now(), 3_600_000),
        );
        expect(ascending(counts)).toEqual(oneToN(INCREMENTS));
      }
    });
  });

  it("a browser's pending social sign-in, answered on two nodes at once, keeps one answer and fails neither", async () => {
    // Was a delete-then-insert: two answers for one browser (two tabs) could both delete, then one insert met the
    // primary key and the person saw a server error. Now one upsert; the later answer stays.
    for (let round = 0; round < ROUNDS; round++) {
      const browser = randomUUID().replaceAll("-", "");
      const pending = (i: number) => ({
        browser,
        kind: "register" as const,
        provider: "google",
        subject: `subject-${i}`,
        email: `p${i}@example.com`,
        email_verified: 1,
        first_name: "Ann",
        last_name: "Lee",
        full_name: "Ann Lee",
        return_to: null,
        expires_at: Date.now() + 60_000,
      });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => federationStore.putPending(nodes[i % NODES] as Db, pending(i))),
      );
      expect(outcomes.filter((o) => o.status === "rejected")).toEqual([]);
      const rows = await db()
        .selectFrom("federation_pending")
        .select("subject")
        .where("browser", "=", browser)
        .execute();
      expect(rows).toHaveLength(1);
    }
  });
});
