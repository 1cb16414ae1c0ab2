import { hash, verify } from "@node-rs/argon2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ARGON2_PARAMS } from "../src/accounts/passwords.ts";
import { createUser, findUserByEmail } from "../src/accounts/users.ts";
import { runAdmin } from "../src/admin/cli.ts";
import { usersStore } from "../src/store/users.ts";
import { Client, mailTo, type TestServer, useMailServer } from "./harness.ts";
import { linkIn } from "./smtp.ts";

/**
 * Passwords are compared after Unicode normalisation (NIST SP 800-63B §3.1.1.2; issue #8): a password set in one
 * form signs in typed in another, everywhere a password is set or checked, and accounts hashed before the change
 * keep working and move to the normalised form.
 */
const fx = useMailServer();
const PROFILE = { firstName: "Uma", lastName: "Ito", countryCode: "JP" };
let ip = 0;
const client = () => new Client(fx.server.url, { "x-forwarded-for": `203.0.113.${(++ip % 250) + 1}` }).start();

/** "Crème brûlée, Ångström, 한국, ﬁ, Ｐ": letters that have several Unicode spellings. */
const SET = "Crème-Brûlée-Ångström-한국-ﬁＰ9!";
const FORMS = ["NFC", "NFD", "NFKC", "NFKD"] as const;
const form = (password: string, f: (typeof FORMS)[number]) => password.normalize(f);

const mailNumber = (address: string, count: number) => mailTo(fx, address, { nth: count });

const envOf = (s: TestServer) => ({
  DATABASE_URL: s.config.databaseUrl,
  SESSION_SECRET: "test-secret-that-is-long-enough-123456",
  NODE_ENV: "test",
});

let n = 0;
const address = () => `unicode-${++n}@example.com`;

describe("passwords in any Unicode form", () => {
  it("signs in with the password typed in another normalisation form than it was set in (property test)", async () => {
    const pieces = fc.constantFrom(
      "é",
      "e\u0301",
      "Å",
      "Å",
      "ñ",
      "한",
      "\u1112\u1161\u11ab",
      "ﬁ",
      "Ｐ",
      "ö",
      "Ω",
      "x",
      "7",
      "!",
    );
    const password = fc.array(pieces, { minLength: 8, maxLength: 14 }).map((p) => p.join(""));
    await fc.assert(
      fc.asyncProperty(password, fc.constantFrom(...FORMS), fc.constantFrom(...FORMS), async (p, setAs, typedAs) => {
        const email = address();
        await createUser(fx.server.app.db, { email, password: form(p, setAs) });
        const answer = await (await client()).login(email, form(p, typedAs));
        expect(answer.status, `${setAs} → ${typedAs}: ${JSON.stringify(p)}`).toBe(200);
      }),
      { numRuns: 8 },
    );
  });

  it("still refuses a different password that merely looks alike", async () => {
    const email = address();
    await createUser(fx.server.app.db, { email, password: SET });
    expect((await (await client()).login(email, SET.replace("è", "e"))).status).toBe(401);
  });

  it("signs in accounts hashed before normalisation, and moves them to the normalised form", async () => {
    for (const [setAs, typedAs] of [
      ["NFD", "NFC"],
      ["NFC", "NFD"],
    ] as const) {
      const email = address();
      const user = await createUser(fx.server.app.db, { email, password: "placeholder-password" });
      // What an older release stored: the string exactly as typed, not normalised.
      const typed = form(SET, setAs);
      await usersStore.update(fx.server.app.db, user.id, { password_hash: await hash(typed, ARGON2_PARAMS) });
      expect((await (await client()).login(email, typed)).status).toBe(200);
      const upgraded = (await findUserByEmail(fx.server.app.db, email))?.password_hash ?? "";
      expect(await verify(upgraded, form(SET, "NFKC"))).toBe(true);
      expect((await (await client()).login(email, form(SET, typedAs))).status).toBe(200);
    }
  });

  it("checks the current password in any form, and sets the new one normalised (change password)", async () => {
    const email = address();
    // A complete profile: a session that owes the profile update could not change the password (issue #10 §1).
    await createUser(fx.server.app.db, { ...PROFILE, email, password: form(SET, "NFC") });
    const c = await client();
    expect((await c.login(email, form(SET, "NFC"))).status).toBe(200);
    const NEW = "Ünïcödé-Kettle-58!";
    const changed = await c.post("/api/account/change_password", {
      oldPassword: form(SET, "NFD"),
      password: form(NEW, "NFD"),
    });
    expect(changed.status).toBe(200);
    expect((await (await client()).login(email, form(NEW, "NFC"))).status).toBe(200);
    expect((await c.post("/api/account/delete/request", { password: form(NEW, "NFKD") })).status).toBe(200);
  });

  it("sets a reset password normalised", async () => {
    const email = address();
    await createUser(fx.server.app.db, { email, password: "Granite-Kettle-58" });
    await (await client()).post("/api/account/recover", { email });
    const code = linkIn(await mailNumber(email, 1), "/account/password-reset").searchParams.get("code");
    const reset = await (await client()).post("/api/account/reset_password", { code, password: form(SET, "NFD") });
    expect(reset.status).toBe(200);
    expect((await (await client()).login(email, form(SET, "NFC"))).status).toBe(200);
  });

  it("sets an invited user's password normalised (set-up)", async () => {
    const email = address();
    expect((await runAdmin(["user:invite", "--email", email], envOf(fx.server))).code).toBe(0);
    const code = linkIn(await mailNumber(email, 1), "/account/password-setup").searchParams.get("code");
    const done = await (await client()).post("/api/account/setup_password", {
      code,
      password: form(SET, "NFKD"),
      marketingInfo: { marketingSource: "Event", platformOfInterest: "Revit", role: "Architect" },
    });
    expect(done.status).toBe(200);
    expect((await (await client()).login(email, form(SET, "NFC"))).status).toBe(200);
  });

  it("sets the admin command line's password normalised (user:create)", async () => {
    const email = address();
    const created = await runAdmin(["user:create", "--email", email, "--password", form(SET, "NFD")], envOf(fx.server));
    expect(created.code).toBe(0);
    expect((await (await client()).login(email, form(SET, "NFC"))).status).toBe(200);
  });
});
