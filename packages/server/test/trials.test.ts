import {
  DEFAULT_TRIAL_PRODUCT_CODE,
  TRIAL_ACTIVATION_TTL_MS,
  TRIALS_PER_ACCOUNT_MAX,
  TrialAnswer,
} from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { activateAccount } from "../src/accounts/activation.ts";
import { createUser, findUserByEmail } from "../src/accounts/users.ts";
import { runAdmin } from "../src/admin/cli.ts";
import { trialsStore } from "../src/store/trials.ts";
import { usersStore } from "../src/store/users.ts";
import { Client, expectErrorObject, registrationBody, useMailServer } from "./harness.ts";
import { solveBotCheck } from "./pow.ts";
import { linkIn } from "./smtp.ts";

/** Issue #12: trial sign-up, its 24-hour activation, trial-mode sign-in and "Start your trial". */
const fx = useMailServer();
let ip = 0;
const client = (headers: Record<string, string> = {}) =>
  new Client(fx.server.url, { "x-forwarded-for": `203.0.113.${++ip % 250}`, ...headers }).start();

const PASSWORD = "Tr0ub4dor&3x";
/** The n-th mail to an address (1-based), once it has arrived. */
const nthMail = (address: string, n: number) => fx.smtp.waitFor(address, { nth: n });

const trialsOf = async (email: string) => {
  const user = await findUserByEmail(fx.server.app.db, email);
  return user ? trialsStore.listForUser(fx.server.app.db, user.id) : [];
};

async function registerTrial(email: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const c = await client(headers);
  const answer = await c.post(
    "/api/account/register",
    registrationBody(email, { isTrial: true, botCheck: await solveBotCheck(c), ...extra }),
  );
  expect(answer.status, answer.text).toBe(200);
  return linkIn(await fx.smtp.waitFor(email), "/account/activate/login");
}

async function activePerson(email: string) {
  await createUser(fx.server.app.db, { email, password: PASSWORD, firstName: "Bo", lastName: "Ek", countryCode: "SE" });
}

describe("trial sign-up", () => {
  it("mails a marked 24-hour link that activates, signs in and starts the product's trial", async () => {
    const before = Date.now();
    const link = await registerTrial("trial-one@example.com", { productCode: "RENDER-PRO" });
    expect(link.searchParams.get("trial")).toBe("1");
    expect(link.searchParams.get("productCode")).toBe("RENDER-PRO");
    expect(link.searchParams.has("return_to")).toBe(false);
    expect(await trialsOf("trial-one@example.com")).toEqual([]); // not before the address is proven

    const browser = await client();
    const answer = await browser.post("/api/account/activation/login", {
      activationCode: link.searchParams.get("code"),
    });
    expect(answer.status, answer.text).toBe(200);
    const trial = TrialAnswer.parse(answer.json.Trial);
    expect(trial).toMatchObject({ productCode: "RENDER-PRO", started: true });
    expect(Date.parse(trial.startedAt)).toBeGreaterThanOrEqual(before);
    expect((await browser.get("/api/session")).json.Email).toBe("trial-one@example.com");
    expect(await trialsOf("trial-one@example.com")).toMatchObject([{ product_code: "RENDER-PRO", brand: "default" }]);

    // Spec §8: the used link says so, its account active (issue #25; the web app then continues to the trial).
    expectErrorObject(
      await (await client()).post("/api/account/activation/login", { activationCode: link.searchParams.get("code") }),
      410,
      "account_already_active",
    );
  });

  it("keeps the return address in the link, the default product code when none is given, and the site's brand", async () => {
    const link = await registerTrial(
      "trial-two@example.com",
      { isTrial: undefined, isEnscapeTrial: true, returnTo: "https://www.archviz.example/try" },
      { "x-gatehouse-theme": "archviz" },
    );
    expect(link.searchParams.get("return_to")).toBe("https://www.archviz.example/try");
    const answer = await (await client()).post("/api/account/activation/login", {
      activationCode: link.searchParams.get("code"),
    });
    expect(answer.json.Trial).toMatchObject({ productCode: DEFAULT_TRIAL_PRODUCT_CODE, started: true });
    expect(await trialsOf("trial-two@example.com")).toMatchObject([{ brand: "archviz" }]);
  });

  it("starts the trial when the plain activation page is used too, and an ordinary sign-up starts none", async () => {
    const link = await registerTrial("trial-plain@example.com", { productCode: "ASSETS" });
    const plain = await client();
    expect((await plain.post("/api/account/activate", { activationCode: link.searchParams.get("code") })).status).toBe(
      200,
    );
    expect(await trialsOf("trial-plain@example.com")).toMatchObject([{ product_code: "ASSETS" }]);

    const c = await client();
    await c.post(
      "/api/account/register",
      registrationBody("not-a-trial@example.com", { productCode: "ASSETS", botCheck: await solveBotCheck(c) }),
    );
    const ordinary = linkIn(await fx.smtp.waitFor("not-a-trial@example.com"), "/account/activate");
    expect(ordinary.pathname).toBe("/account/activate");
    const answer = await (await client()).post("/api/account/activate", {
      activationCode: ordinary.searchParams.get("code"),
    });
    expect(answer.status).toBe(200);
    expect(await trialsOf("not-a-trial@example.com")).toEqual([]);
  });

  it("refuses the link after 24 hours (spec §9)", async () => {
    const link = await registerTrial("trial-late@example.com");
    const code = link.searchParams.get("code") ?? "";
    const issued = Date.now();
    expect(await activateAccount(fx.server.app.db, code, undefined, issued + TRIAL_ACTIVATION_TTL_MS + 60_000)).toEqual(
      { ok: false, refusal: "code_expired" },
    );
    expect(await trialsOf("trial-late@example.com")).toEqual([]);
  });

  it("refuses a malformed product code with the field's message, before anything is written", async () => {
    const c = await client();
    const answer = await c.post(
      "/api/account/register",
      registrationBody("bad-code@example.com", {
        isTrial: true,
        productCode: "<script>",
        botCheck: await solveBotCheck(c),
      }),
    );
    expect(expectErrorObject(answer, 400, "invalid_request").fields).toContainEqual({
      field: "productCode",
      message: "validation.productCode.invalid",
    });
    expect(await findUserByEmail(fx.server.app.db, "bad-code@example.com")).toBeUndefined();
  });
});

describe("a trial sign-up proven another way, or from before product codes were checked", () => {
  it("starts the trial when a password reset proves the pending account's address", async () => {
    await registerTrial("trial-reset@example.com", { productCode: "VIA-RESET" });
    const c = await client();
    await c.post("/api/account/recover", { email: "trial-reset@example.com" });
    const reset = linkIn(await nthMail("trial-reset@example.com", 2), "/account/password-reset");
    const answer = await c.post("/api/account/reset_password", {
      code: reset.searchParams.get("code"),
      password: "N3w-Granite-Kettle",
    });
    expect(answer.status, answer.text).toBe(200);
    expect(await trialsOf("trial-reset@example.com")).toMatchObject([{ product_code: "VIA-RESET" }]);
  });

  it("takes the default for a stored product code that today's rule refuses", async () => {
    const user = await createUser(fx.server.app.db, {
      email: "trial-legacy@example.com",
      password: PASSWORD,
      firstName: "Old",
      lastName: "Timer",
      countryCode: "DE",
      status: "pending",
    });
    // What a sign-up could store before the rule: control characters, a forged line, a NUL.
    await usersStore.update(fx.server.app.db, user.id, {
      signup_meta: JSON.stringify({ isTrial: true, productCode: "X\u001b[2J\nforged\u0000" }),
    });
    const c = await client();
    await c.post("/api/account/trial/activation/resend", { email: "trial-legacy@example.com" });
    const link = linkIn(await nthMail("trial-legacy@example.com", 1), "/account/activate/login");
    const answer = await c.post("/api/account/activation/login", { activationCode: link.searchParams.get("code") });
    expect(answer.json.Trial).toMatchObject({ productCode: DEFAULT_TRIAL_PRODUCT_CODE });
  });
});

describe("POST /api/account/trial/activation/resend", () => {
  it("answers the same for any address and resends a pending trial's marked link", async () => {
    const first = await registerTrial("trial-resend@example.com", { productCode: "CFG" });
    // Forget the first mail, so the wait below is for the resent one.
    fx.smtp.received.splice(
      0,
      fx.smtp.received.length,
      ...fx.smtp.received.filter((m) => !m.to.includes("trial-resend@example.com")),
    );
    const c = await client();
    for (const email of ["trial-resend@example.com", "nobody-trial@example.com"]) {
      const answer = await c.post("/api/account/trial/activation/resend", { email });
      expect([answer.status, answer.json]).toEqual([200, {}]);
    }
    const resent = linkIn(await fx.smtp.waitFor("trial-resend@example.com"), "/account/activate/login");
    expect(resent.searchParams.get("trial")).toBe("1");
    expect(resent.searchParams.get("code")).not.toBe(first.searchParams.get("code"));
    // The newer link retires the older one.
    expectErrorObject(
      await c.post("/api/account/activation/login", { activationCode: first.searchParams.get("code") }),
      410,
      "code_superseded",
    );
    const answer = await c.post("/api/account/activation/login", { activationCode: resent.searchParams.get("code") });
    expect(answer.json.Trial).toMatchObject({ productCode: "CFG" });
  });
});

describe("trial-mode sign-in", () => {
  it("starts the product's trial once; a plain or failed sign-in starts none", async () => {
    await activePerson("trial-login@example.com");
    const c = await client();
    expect((await c.login("trial-login@example.com", PASSWORD)).status).toBe(200);
    expect(await trialsOf("trial-login@example.com")).toEqual([]);

    const wrong = await client();
    const refused = await wrong.post("/api/account/login", {
      email: "trial-login@example.com",
      password: "wrong-password",
      isTrial: true,
      productCode: "RENDER",
    });
    expectErrorObject(refused, 401, "invalid_authentication");
    expect(await trialsOf("trial-login@example.com")).toEqual([]);

    for (let i = 0; i < 2; i++) {
      const t = await client({ "x-gatehouse-theme": "engine" });
      const answer = await t.post("/api/account/login", {
        email: "trial-login@example.com",
        password: PASSWORD,
        isTrial: true,
        productCode: "RENDER",
      });
      expect(answer.json).toMatchObject({ RequiredPasswordUpdate: false, RequiredProfileUpdate: false });
      // Spec §4: in trial mode, the trial's address (not a new account), on the engine brand the page asked for.
      expect(new URL(answer.json.next.url).searchParams.get("isNewAccount")).toBe("false");
      expect(answer.json.next.url).toContain("productCode=RENDER");
    }
    expect(await trialsOf("trial-login@example.com")).toMatchObject([{ product_code: "RENDER", brand: "engine" }]);
  });

  it("refuses a malformed product code without signing in", async () => {
    await activePerson("trial-badcode@example.com");
    const c = await client();
    const answer = await c.post("/api/account/login", {
      email: "trial-badcode@example.com",
      password: PASSWORD,
      isTrial: true,
      productCode: "../../etc",
    });
    expectErrorObject(answer, 400, "invalid_request");
    expect((await c.get("/api/session")).status).toBe(204);
  });
});

describe("POST /api/account/trial/start", () => {
  it("needs a session and its CSRF token", async () => {
    const anonymous = await client();
    expectErrorObject(await anonymous.post("/api/account/trial/start", {}), 401, "not_authenticated");
    await activePerson("trial-csrf@example.com");
    const c = await client();
    await c.login("trial-csrf@example.com", PASSWORD);
    expectErrorObject(await c.post("/api/account/trial/start", {}, { "x-csrf-token": "forged" }), 403, "csrf_invalid");
    expect(await trialsOf("trial-csrf@example.com")).toEqual([]);
  });

  it("starts a trial once a product, answers the first start's date after, and caps an account's trials", async () => {
    await activePerson("trial-start@example.com");
    const c = await client({ "x-gatehouse-theme": "assets" });
    await c.login("trial-start@example.com", PASSWORD);
    const first = await c.post("/api/account/trial/start", { isTrial: true });
    expect(first.json).toMatchObject({ productCode: DEFAULT_TRIAL_PRODUCT_CODE, started: true });
    const again = await c.post("/api/account/trial/start", { isTrial: true, productCode: DEFAULT_TRIAL_PRODUCT_CODE });
    expect(again.json).toEqual({ ...first.json, started: false });
    expect(await trialsOf("trial-start@example.com")).toMatchObject([{ brand: "assets" }]);

    for (let i = 1; i < TRIALS_PER_ACCOUNT_MAX; i++) {
      expect((await c.post("/api/account/trial/start", { productCode: `P-${i}` })).status).toBe(200);
    }
    expectErrorObject(
      await c.post("/api/account/trial/start", { productCode: "ONE-TOO-MANY" }),
      409,
      "trial_limit_reached",
    );
    // One already started still answers.
    expect((await c.post("/api/account/trial/start", { productCode: "P-1" })).json.started).toBe(false);
    expect(await trialsOf("trial-start@example.com")).toHaveLength(TRIALS_PER_ACCOUNT_MAX);
  });

  it("is listed by the admin command line, newest first, filtered by address or product", async () => {
    await activePerson("trial-admin@example.com");
    const c = await client();
    await c.login("trial-admin@example.com", PASSWORD);
    await c.post("/api/account/trial/start", { productCode: "ADMIN-A" });
    await c.post("/api/account/trial/start", { productCode: "ADMIN-B" });
    const env = { DATABASE_URL: fx.server.config.databaseUrl, NODE_ENV: "test" };
    const listed = await runAdmin(["trial:list", "--email", "Trial-Admin@example.com"], env);
    expect(listed.code).toBe(0);
    expect(
      listed.out
        .trimEnd()
        .split("\n")
        .map((line) => line.split(/\s+/u).slice(1)),
    ).toEqual([
      ["ADMIN-B", "default", "trial-admin@example.com"],
      ["ADMIN-A", "default", "trial-admin@example.com"],
    ]);
    expect((await runAdmin(["trial:list", "--product", "ADMIN-A"], env)).out).toMatch(
      /ADMIN-A {2}default {2}trial-admin/u,
    );
    expect((await runAdmin(["trial:list", "--product", "NO-SUCH"], env)).out).toBe("no trials\n");
  });
});
