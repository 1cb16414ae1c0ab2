import { describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { runAdmin } from "../src/admin/cli.ts";
import { Client, expectErrorObject, useMailServer } from "./harness.ts";
import { solveBotCheck } from "./pow.ts";
import { linkIn } from "./smtp.ts";

/** The password policy at every place a password is chosen (ASVS 6.2.4, 6.2.11; issue #8). */
const fx = useMailServer();
let ip = 0;
const client = () => new Client(fx.server.url, { "x-forwarded-for": `198.18.0.${(++ip % 250) + 1}` }).start();
const STRONG = "Copper-Lantern-91!";
const validate = async (body: Record<string, string>) =>
  (await (await client()).post("/api/account/register/validate", body)).json;

async function mailedCode(address: string, path: string): Promise<string> {
  await fx.server.app.services.mail.runOnce();
  return linkIn(await fx.smtp.waitFor(address), path).searchParams.get("code") ?? "";
}

describe("register/validate says it on blur, with what the form knows", () => {
  it.each([
    ["a breached password with capitals, digits and a symbol", { password: "Password123!" }, "errors.common_password"],
    ["a look-alike spelling of one", { password: "P@55w0rd2024" }, "errors.common_password"],
    ["the product's name", { password: "Gatehouse2024!" }, "errors.context_password"],
    ["a brand's name", { password: "C0rona!!" }, "errors.context_password"],
    ["one repeated character", { password: "zzzzzzzzzz" }, "errors.weak_password"],
    ["only spaces", { password: "          " }, "errors.weak_password"],
    ["a keyboard row", { password: "asdfghjkl" }, "errors.weak_password"],
    ["a breached word with a zero-width space inside", { password: "Pass\u200Bword123!" }, "errors.common_password"],
    ["a breached word written twice, apart", { password: "Dragon2024Dragon!" }, "errors.common_password"],
    ["keyboard columns typed with Shift", { password: "!QAZ2wsx#EDC" }, "errors.weak_password"],
    ["a repeated digit padded with a letter", { password: "x11111111" }, "errors.weak_password"],
    ["a breached word in Cyrillic look-alikes", { password: "Раssword123!" }, "errors.common_password"],
    [
      "step 1: the address's local part",
      { email: "tamsin.roe@example.com", password: "Tamsin-1990!" },
      "errors.context_password",
    ],
    ["step 2: a name", { firstName: "Bartholomew", password: "bartholomew77" }, "errors.context_password"],
  ])("refuses %s", async (_name, body, message) => {
    expect(await validate(body)).toEqual({ status: "invalid", message });
  });

  it("checks the password, not the address, when both come", async () => {
    await createUser(fx.server.app.db, { email: "taken-v@example.com", password: STRONG });
    expect(await validate({ email: "taken-v@example.com", password: STRONG })).toEqual({ status: "ok" });
    expect(await validate({ password: "Tamsin-1990!" })).toEqual({ status: "ok" });
  });
});

describe("POST /api/account/register", () => {
  const register = async (extra: Record<string, unknown>) => {
    const c = await client();
    return c.post("/api/account/register", {
      email: "quentin.hale@example.com",
      password: STRONG,
      firstName: "Quentin",
      lastName: "Hale",
      countryCode: "DE",
      ...extra,
      botCheck: await solveBotCheck(c),
    });
  };

  it.each([
    ["Quentin#2024", "context_password"],
    ["QuentinHale", "context_password"],
    ["Sunshine2024!", "common_password"],
    ["1111111111", "weak_password"],
  ])("refuses %s with %s on the password field", async (password, code) => {
    const answer = expectErrorObject(await register({ password }), 400, code);
    expect(answer.fields).toEqual([{ field: "password", message: `errors.${code}` }]);
  });
});

describe("new passwords: reset, set-up and change", () => {
  const person = (email: string) =>
    createUser(fx.server.app.db, {
      email,
      password: STRONG,
      firstName: "Odalys",
      lastName: "Brennan",
      countryCode: "ES",
    });

  it("refuses breached variants and the account's own names at reset, and the link still works", async () => {
    await person("odalys.reset@example.com");
    await (await client()).post("/api/account/recover", { email: "odalys.reset@example.com" });
    const code = await mailedCode("odalys.reset@example.com", "/account/password-reset");
    const c = await client();
    for (const [password, refusal] of [
      ["Password123!", "common_password"],
      ["Br3nnan-2024!", "context_password"],
      ["Odalys.Reset#1", "context_password"],
    ] as const) {
      const answer = expectErrorObject(await c.post("/api/account/reset_password", { code, password }), 400, refusal);
      expect(answer.fields).toEqual([{ field: "password", message: `errors.${refusal}` }]);
    }
    expect((await c.get(`/api/account/recover/${code}`)).json).toEqual({ status: "valid" });
    expect((await c.post("/api/account/reset_password", { code, password: "Slate-Harbour-26?" })).status).toBe(200);
  });

  it("refuses the invited address as a password at set-up", async () => {
    const env = {
      DATABASE_URL: fx.server.config.databaseUrl,
      SESSION_SECRET: "test-secret-that-is-long-enough-123456",
      NODE_ENV: "test",
    };
    expect((await runAdmin(["user:invite", "--email", "wilhelmina@example.com"], env)).code).toBe(0);
    const code = await mailedCode("wilhelmina@example.com", "/account/password-setup");
    const marketingInfo = { marketingSource: "Event", platformOfInterest: "Revit", role: "Architect" };
    expectErrorObject(
      await (await client()).post("/api/account/setup_password", { code, password: "Wilhelmina2024!", marketingInfo }),
      400,
      "context_password",
    );
    expectErrorObject(
      await (await client()).post("/api/account/setup_password", { code, password: "Football2024!", marketingInfo }),
      400,
      "common_password",
    );
  });

  it("refuses them at change too, after the current password is checked", async () => {
    await person("odalys.change@example.com");
    const c = await client();
    await c.login("odalys.change@example.com", STRONG);
    const change = (password: string) => c.post("/api/account/change_password", { oldPassword: STRONG, password });
    expectErrorObject(await change("Password123!"), 400, "common_password");
    expectErrorObject(await change("Odalys-Brennan1"), 400, "context_password");
    expectErrorObject(await change("Aa1!Aa1!Aa1!Aa1!"), 400, "weak_password");
    expect((await change("Slate-Harbour-26?")).status).toBe(200);
  });
});

describe("the admin command line", () => {
  it("refuses a password the policy refuses", async () => {
    const env = {
      DATABASE_URL: fx.server.config.databaseUrl,
      SESSION_SECRET: "test-secret-that-is-long-enough-123456",
      NODE_ENV: "test",
    };
    const run = (...args: string[]) => runAdmin(["user:create", "--email", "ines.vidal@example.com", ...args], env);
    expect(await run("--password", "Password123!")).toEqual({
      code: 1,
      out: expect.stringMatching(/^password: This password is too common/u),
    });
    expect((await run("--password", "Vidal2024!", "--last", "Vidal")).code).toBe(1);
    expect((await run("--password", STRONG, "--last", "Vidal")).code).toBe(0);
  });
});
