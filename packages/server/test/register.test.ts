import { ACTIVATION_TTL_MS, RegisterValidateAnswer } from "@gatehouse/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { activateAccount } from "../src/accounts/activation.ts";
import { createUser, findUserByEmail } from "../src/accounts/users.ts";
import { outboxStore } from "../src/store/outbox.ts";
import {
  Client,
  expectErrorObject,
  expectSameTiming,
  registrationBody,
  startServer,
  useMailServer,
} from "./harness.ts";
import { corporateOnlyFile } from "./idps.ts";
import { solveBotCheck } from "./pow.ts";
import { linkIn, TestSmtp } from "./smtp.ts";

const fx = useMailServer();
let ip = 0;
const client = (headers: Record<string, string> = {}) =>
  new Client(fx.server.url, { "x-forwarded-for": `203.0.113.${++ip % 250}`, ...headers }).start();

async function register(email: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const c = await client(headers);
  return c.post("/api/account/register", { ...registrationBody(email, extra), botCheck: await solveBotCheck(c) });
}

describe("POST /api/account/register/validate", () => {
  it("says ok, invalid or conflict for an e-mail address, pending accounts included", async () => {
    const c = await client();
    expect(
      RegisterValidateAnswer.parse((await c.post("/api/account/register/validate", { email: "new@example.com" })).json),
    ).toEqual({
      status: "ok",
      corporate: false,
    });
    expect((await c.post("/api/account/register/validate", { email: "nope" })).json).toEqual({
      status: "invalid",
      message: "validation.email.invalid",
    });
    expect((await register("taken@example.com")).status).toBe(200);
    expect((await c.post("/api/account/register/validate", { email: "TAKEN@example.com" })).json).toMatchObject({
      status: "conflict",
      message: "validation.email.conflict",
    });
  });

  it("flags single-sign-on-only domains for the corporate hint", async () => {
    const corp = await startServer({ env: { IDPS_FILE: corporateOnlyFile() } });
    try {
      const c = await new Client(corp.url).start();
      expect((await c.post("/api/account/register/validate", { email: "ann@bigcorp.example" })).json).toEqual({
        status: "ok",
        corporate: true,
      });
    } finally {
      await corp.close();
    }
  });

  it("checks other fields with the contract's rules, and common passwords", async () => {
    const c = await client();
    expect((await c.post("/api/account/register/validate", { firstName: "a".repeat(73) })).json).toEqual({
      status: "invalid",
      message: "validation.firstName.max",
    });
    expect((await c.post("/api/account/register/validate", { password: "password123" })).json).toEqual({
      status: "invalid",
      message: "errors.common_password",
    });
    expect((await c.post("/api/account/register/validate", { countryCode: "DE" })).json).toEqual({ status: "ok" });
    expectErrorObject(await c.post("/api/account/register/validate", {}), 400, "invalid_request");
  });

  it("is rate-limited per client address (it is an existence oracle)", async () => {
    const c = await client();
    let last = await c.post("/api/account/register/validate", { email: "x0@example.com" });
    for (let i = 1; i <= 40 && last.status !== 429; i++)
      last = await c.post("/api/account/register/validate", { email: `x${i}@example.com` });
    expectErrorObject(last, 429, "rate_limited");
  });
});

describe("POST /api/account/register", () => {
  it("creates a pending account and sends its activation mail in the visitor's language and brand", async () => {
    const c = await client({ "accept-language": "de", "x-gatehouse-theme": "engine" });
    const answer = await c.post("/api/account/register", {
      ...registrationBody("ann@example.com", { newsletterSubscription: true }),
      botCheck: await solveBotCheck(c),
    });
    expect(answer.status).toBe(200);
    const user = await findUserByEmail(fx.server.app.db, "ann@example.com");
    expect(user).toMatchObject({
      status: "pending",
      first_name: "Ann",
      country_code: "DE",
      newsletter: 1,
      language: "de",
      brand: "engine",
    });
    const mail = await fx.smtp.waitFor("ann@example.com");
    expect(mail.text).toContain("Corona");
    expect(mail.text).toMatch(/Content-Type: text\/html/u);
    expect(mail.text).toMatch(/Content-Type: text\/plain/u);
    // The link opens on the brand's own host from the brands file, in the page's language.
    const link = linkIn(mail, "/account/activate");
    expect(link.origin).toBe("http://engine.localhost:8080");
    expect(link.searchParams.get("lang")).toBe("de");
    const code = link.searchParams.get("code") ?? "";
    expect(code).toMatch(/^[\w-]{43}$/u);
    // The code is stored only as a hash.
    const rows = await fx.server.app.db
      .selectFrom("codes")
      .selectAll()
      .where("user_id", "=", user?.id ?? "")
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.code_hash).not.toContain(code);
    // Pending accounts cannot sign in until activated.
    expectErrorObject(await c.login("ann@example.com", "Tr0ub4dor&3x"), 403, "user_not_active");
  });

  it("refuses a taken address, pending or active, with the conflict message on the e-mail field", async () => {
    await register("dup@example.com");
    const answer = expectErrorObject(await register("Dup@Example.com"), 409, "email_conflict");
    expect(answer.message).toBe("This email address is already connected to an account.");
    expect(answer.fields).toEqual([{ field: "email", message: "validation.email.conflict" }]);
  });

  it("refuses common and badly sized passwords on the server, not only in the browser", async () => {
    expect(
      expectErrorObject(await register("weak@example.com", { password: "password1" }), 400, "common_password").fields,
    ).toEqual([{ field: "password", message: "errors.common_password" }]);
    expect(
      expectErrorObject(await register("short@example.com", { password: "Ab1!x" }), 400, "invalid_request").fields,
    ).toEqual([{ field: "password", message: "validation.password.registerMin" }]);
    expect(
      expectErrorObject(await register("long@example.com", { password: "Ab1!".repeat(17) }), 400, "invalid_request")
        .fields,
    ).toEqual([{ field: "password", message: "validation.password.registerMax" }]);
  });

  it("validates every field with the contract's rules", async () => {
    const answer = expectErrorObject(
      await register("fields@example.com", { firstName: " ", lastName: "b".repeat(54), countryCode: "" }),
      400,
      "invalid_request",
    );
    expect(answer.fields).toEqual(
      expect.arrayContaining([
        { field: "firstName", message: "validation.firstName.required" },
        { field: "lastName", message: "validation.lastName.max" },
        { field: "countryCode", message: "validation.country.required" },
      ]),
    );
  });

  it("needs a solved bot check outside CN, once", async () => {
    const c = await client();
    expectErrorObject(
      await c.post("/api/account/register", registrationBody("bot@example.com")),
      400,
      "bot_check_failed",
    );
    expectErrorObject(
      await c.post("/api/account/register", { ...registrationBody("bot@example.com"), botCheck: "garbage" }),
      400,
      "bot_check_failed",
    );
    const token = await solveBotCheck(c);
    expect(
      (await c.post("/api/account/register", { ...registrationBody("bot1@example.com"), botCheck: token })).status,
    ).toBe(200);
    expectErrorObject(
      await c.post("/api/account/register", { ...registrationBody("bot2@example.com"), botCheck: token }),
      400,
      "bot_check_failed",
    );
  });

  it("needs the image captcha in CN: wrong answers fail on the captcha field, and a captcha works once", async () => {
    const cn = await client({ "cf-ipcountry": "CN" });
    const captcha = (await cn.get("/api/captcha/generate")).json;
    expect(captcha.image).toMatch(/^data:image\/svg\+xml;base64,/u);
    const wrong = expectErrorObject(
      await cn.post("/api/account/register", {
        ...registrationBody("cn@example.com"),
        captchaGUID: captcha.id,
        captchaAnswer: "000000",
      }),
      400,
      "captcha_incorrect",
    );
    expect(wrong.message).toBe("Incorrect answer to captcha");
    expect(wrong.fields).toEqual([{ field: "captchaAnswer", message: "errors.captcha_incorrect" }]);

    const fresh = (await cn.get("/api/captcha/generate")).json;
    const { answer } = (await cn.get(`/api/test/captcha/${fresh.id}`)).json;
    expect(answer).toMatch(/^\d{5}$/u);
    expect(
      (
        await cn.post("/api/account/register", {
          ...registrationBody("cn@example.com"),
          captchaGUID: fresh.id,
          captchaAnswer: answer,
        })
      ).status,
    ).toBe(200);
    expectErrorObject(
      await cn.post("/api/account/register", {
        ...registrationBody("cn2@example.com"),
        captchaGUID: fresh.id,
        captchaAnswer: answer,
      }),
      400,
      "captcha_incorrect",
    );
  });

  it("serves the image captcha only to visitors located in CN", async () => {
    expectErrorObject(await (await client({ "cf-ipcountry": "DE" })).get("/api/captcha/generate"), 404, "not_found");
  });

  it("never answers 5xx, whatever the payload (property test)", async () => {
    const c = await client();
    const field = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string()),
      fc.object(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            email: field,
            password: field,
            firstName: field,
            lastName: field,
            countryCode: field,
            newsletterSubscription: field,
            botCheck: field,
            returnTo: field,
            captchaGUID: field,
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const answer = await c.post("/api/account/register", body);
          expect(answer.status).toBeLessThan(500);
          const validate = await c.post("/api/account/register/validate", body);
          expect(validate.status).toBeLessThan(500);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("activation", () => {
  it("activates once with the mailed code, then signs in", async () => {
    await register("act@example.com");
    const code = linkIn(await fx.smtp.waitFor("act@example.com"), "/account/activate").searchParams.get("code") ?? "";
    const c = await client();
    expect((await c.post("/api/account/activate", { activationCode: code })).status).toBe(200);
    expect((await findUserByEmail(fx.server.app.db, "act@example.com"))?.status).toBe("active");
    // Issue #25: the used link of an active account says so (no failure); the sign-in link answers the same.
    expect(
      expectErrorObject(await c.post("/api/account/activate", { activationCode: code }), 410, "account_already_active")
        .temporary,
    ).toBe(false);
    expectErrorObject(
      await (await client()).post("/api/account/activation/login", { activationCode: code }),
      410,
      "account_already_active",
    );
    expect((await c.login("act@example.com", "Tr0ub4dor&3x")).status).toBe(200);
  });

  it("says only code_used for the used link of an account that is not active (issue #25)", async () => {
    await register("act-off@example.com");
    const code =
      linkIn(await fx.smtp.waitFor("act-off@example.com"), "/account/activate").searchParams.get("code") ?? "";
    const c = await client();
    expect((await c.post("/api/account/activate", { activationCode: code })).status).toBe(200);
    const user = await findUserByEmail(fx.server.app.db, "act-off@example.com");
    await fx.server.app.db
      .updateTable("users")
      .set({ status: "disabled" })
      .where("id", "=", user?.id ?? "")
      .execute();
    expectErrorObject(await c.post("/api/account/activate", { activationCode: code }), 410, "code_used");
  });

  it("refuses an unknown, a missing and an expired code", async () => {
    const c = await client();
    expectErrorObject(await c.post("/api/account/activate", { activationCode: "x".repeat(43) }), 404, "code_invalid");
    expectErrorObject(await c.post("/api/account/activate", { activationCode: "" }), 400, "invalid_request");
    await register("late@example.com");
    const code = linkIn(await fx.smtp.waitFor("late@example.com"), "/account/activate").searchParams.get("code") ?? "";
    expect(await activateAccount(fx.server.app.db, code, undefined, Date.now() + ACTIVATION_TTL_MS + 1)).toEqual({
      ok: false,
      refusal: "code_expired",
    });
    expect(
      await activateAccount(fx.server.app.db, code, undefined, Date.now() + ACTIVATION_TTL_MS - 60_000),
    ).toMatchObject({
      ok: true,
    });
  });

  it("activates and signs in with /activation/login, and the link carries an allowed return address", async () => {
    const c = await client();
    await c.post("/api/account/register", {
      ...registrationBody("trial@example.com", { returnTo: "https://www.gatehouse.example/try/corona" }),
      botCheck: await solveBotCheck(c),
    });
    const link = linkIn(await fx.smtp.waitFor("trial@example.com"), "/account/activate/login");
    expect(link.searchParams.get("return_to")).toBe("https://www.gatehouse.example/try/corona");
    const fresh = await client();
    expect(
      (await fresh.post("/api/account/activation/login", { activationCode: link.searchParams.get("code") })).status,
    ).toBe(200);
    expect((await fresh.get("/api/session")).json.Email).toBe("trial@example.com");
  });

  it("drops a return address that is not allowed from the link", async () => {
    const c = await client();
    await c.post("/api/account/register", {
      ...registrationBody("evil@example.com", { returnTo: "https://evil.example/" }),
      botCheck: await solveBotCheck(c),
    });
    const mail = await fx.smtp.waitFor("evil@example.com");
    expect(mail.text).not.toContain("evil.example/");
    expect(linkIn(mail, "/account/activate").pathname).toBe("/account/activate");
  });
});

describe("POST /api/account/resend_activation", () => {
  it("does a code's worth of work for an address without a pending account, as for one with", async () => {
    const db = fx.server.app.db;
    const decoys = async () => (await db.selectFrom("spent_tokens").select("token_hash").execute()).length;
    const before = await decoys();
    await (await client()).post("/api/account/resend_activation", { email: "no-account-decoy@example.com" });
    expect(await decoys()).toBe(before + 1);
  });

  it("takes as long for an unknown address as for a pending account (a decoy of the same work)", async () => {
    const rounds = 16;
    for (let i = 0; i < rounds; i++)
      await createUser(fx.server.app.db, {
        email: `pending-t${i}@example.com`,
        password: "Granite-Kettle-58",
        status: "pending",
      });
    const addresses = (prefix: string) => Array.from({ length: rounds }, (_, i) => `${prefix}-t${i}@example.com`);
    await expectSameTiming(
      async (email) => {
        const c = await client();
        return () => c.post("/api/account/resend_activation", { email });
      },
      addresses("pending"),
      addresses("unknown"),
    );
  });

  it("answers the same for a pending, an active and an unknown address, and mails only the pending one", async () => {
    await register("again@example.com");
    await fx.smtp.waitFor("again@example.com");
    const firstCode = linkIn(
      fx.smtp.received.filter((m) => m.to.includes("again@example.com"))[0] ??
        (await fx.smtp.waitFor("again@example.com")),
      "/account/activate",
    ).searchParams.get("code");
    const c = await client();
    const pending = await c.post("/api/account/resend_activation", { email: "again@example.com" });
    const unknown = await c.post("/api/account/resend_activation", { email: "nobody-here@example.com" });
    const active = await c.post("/api/account/resend_activation", { email: "act@example.com" });
    for (const answer of [pending, unknown, active]) {
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({});
    }
    await fx.server.app.services.mail.runOnce();
    const mails = fx.smtp.received.filter((m) => m.to.includes("again@example.com"));
    expect(mails.length).toBe(2);
    expect(fx.smtp.received.some((m) => m.to.includes("nobody-here@example.com"))).toBe(false);
    // Only the newest link works; the older one says a newer link replaced it, before and after that one is used.
    const newCode = linkIn(mails[1] as never, "/account/activate").searchParams.get("code");
    const retired = expectErrorObject(
      await c.post("/api/account/activate", { activationCode: firstCode }),
      410,
      "code_superseded",
    );
    expect(retired.temporary).toBe(false);
    expect((await c.post("/api/account/activate", { activationCode: newCode })).status).toBe(200);
    expectErrorObject(
      await c.post("/api/account/activation/login", { activationCode: firstCode }),
      410,
      "code_superseded",
    );
    expectErrorObject(
      await c.post("/api/account/activate", { activationCode: newCode }),
      410,
      "account_already_active",
    );
  });
});

describe("delivered mail", () => {
  it("keeps no readable link in the database once the mail server has it, and is forgotten after 30 days", async () => {
    expect((await register("scrub@example.com")).status).toBe(200);
    const code = linkIn(await fx.smtp.waitFor("scrub@example.com"), "/account/activate").searchParams.get("code");
    expect(code).toMatch(/^[\w-]{43}$/u);
    const db = fx.server.app.db;
    const mine = () => outboxStore.list(db, 10, "scrub@example.com");
    await expect.poll(async () => (await mine())[0]?.status).toBe("sent");
    expect(await mine()).toMatchObject([{ kind: "activation", text_body: "", html_body: "" }]);
    expect(JSON.stringify(await db.selectFrom("outbox").selectAll().execute())).not.toContain(code);
    // The link still works: the code itself is stored hashed.
    expect((await (await client()).post("/api/account/activate", { activationCode: code })).status).toBe(200);

    const sentAt = (await mine())[0]?.created_at ?? 0;
    await outboxStore.deleteFinishedBefore(db, sentAt);
    expect(await mine()).toHaveLength(1);
    await outboxStore.deleteFinishedBefore(db, sentAt + 1);
    expect(await mine()).toEqual([]);
  });
});

describe("mail survives an SMTP outage", () => {
  it("keeps the mail while the server is down and delivers it when it is back", async () => {
    const outage = new TestSmtp();
    await outage.start();
    const port = outage.port;
    await outage.stop();
    const local = await startServer({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, TRUST_PROXY: "true" } });
    try {
      const c = await new Client(local.url).start();
      const answer = await c.post("/api/account/register", {
        ...registrationBody("outage@example.com"),
        botCheck: await solveBotCheck(c),
      });
      expect(answer.status).toBe(200);
      await local.app.services.mail.runOnce();
      const [queued] = await outboxStore.list(local.app.db, 1, "outage@example.com");
      expect(queued).toMatchObject({ status: "pending", attempts: 1 });
      expect(queued?.last_error).toBeTruthy();

      const back = await new TestSmtp().start(port);
      try {
        // Time passes: make the retry due now instead of waiting out the back-off (the queue's job holds the time).
        await local.app.db.updateTable("jobs").set({ next_attempt_at: Date.now() }).execute();
        await local.app.services.mail.runOnce();
        const mail = await back.waitFor("outage@example.com");
        expect(linkIn(mail, "/account/activate").searchParams.get("code")).toMatch(/^[\w-]{43}$/u);
        expect((await outboxStore.list(local.app.db, 1, "outage@example.com"))[0]?.status).toBe("sent");
      } finally {
        await back.stop();
      }
    } finally {
      await local.close();
    }
  });
});
