import { hash } from "node:crypto";
import { PasskeyCreationOptions, PasskeyRequestOptions, PasskeySignInAnswer, STEP_UP_MS } from "@gatehouse/contract";
import { expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { factorsOf } from "../src/factors/factors.ts";
import { defaultPasskeyName, rpIdOfHost } from "../src/factors/passkeys.ts";
import { sessionCookieName } from "../src/http/session.ts";
import { Client, describeDatabases, expectErrorObject, freshPostgres, useMailServer } from "./harness.ts";
import { SoftAuthenticator } from "./software-authenticator.ts";

const PASSWORD = "Granite-Kettle-58";
/** The tests' requests go to 127.0.0.1, a host of the brands file: its origin has PUBLIC_URL's scheme and port. */
const ORIGIN = "http://127.0.0.1:8080";

describeDatabases([["SQLite"]])("the RP ID of a brand host", () => {
  it("is the registrable domain of a public host, and a loopback host itself", () => {
    expect(rpIdOfHost("login.archviz.example")).toBe("archviz.example");
    expect(rpIdOfHost("login.cloud.gatehouse.example")).toBe("gatehouse.example");
    expect(rpIdOfHost("gatehouse.example")).toBe("gatehouse.example");
    // The Public Suffix List, as browsers read it: a brand under a two-label suffix keeps its own domain.
    expect(rpIdOfHost("login.brand.co.uk")).toBe("brand.co.uk");
    expect(rpIdOfHost("login.vendor.github.io")).toBe("vendor.github.io");
    expect(rpIdOfHost("login.archviz.localhost")).toBe("login.archviz.localhost");
    expect(rpIdOfHost("localhost")).toBe("localhost");
    expect(rpIdOfHost("127.0.0.1")).toBe("127.0.0.1");
  });

  it("names a passkey after the browser and platform it was made on", () => {
    const chrome =
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
    expect(defaultPasskeyName(chrome)).toBe("Chrome on Windows");
    expect(defaultPasskeyName("curl/8")).toBe("Passkey");
  });
});

describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("passkeys on %s", (_name, database) => {
  const fx = useMailServer(database);
  let ip = 0;
  const client = () =>
    new Client(fx.server.url, {
      "x-forwarded-for": `198.51.100.${(++ip % 250) + 1}`,
      "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
    }).start();
  const db = () => fx.server.app.db;

  async function signedIn(email: string) {
    await createUser(db(), { email, password: PASSWORD, firstName: "Ann", lastName: "Lee", countryCode: "DE" });
    const c = await client();
    expect((await c.login(email, PASSWORD)).status).toBe(200);
    return c;
  }

  /** A passkey added in a signed-in session, by the real registration ceremony. */
  async function addPasskey(c: Client, authenticator: SoftAuthenticator, name?: string) {
    const options = await c.post("/api/account/passkeys/options");
    expect(options.status).toBe(200);
    const created = authenticator.create(PasskeyCreationOptions.parse(options.json));
    return c.post("/api/account/passkeys", { response: created, ...(name ? { name } : {}) });
  }

  /** A passkey ceremony from the sign-in page: options, the authenticator's assertion, the verification. */
  async function passkeySignIn(
    c: Client,
    authenticator: SoftAuthenticator,
    use: Parameters<SoftAuthenticator["get"]>[1] = {},
    purpose?: "reauthenticate",
  ) {
    const options = await c.post("/api/sign-in/passkey/options", purpose ? { purpose } : {});
    expect(options.status).toBe(200);
    const assertion = authenticator.get(PasskeyRequestOptions.parse(options.json), use);
    return c.post("/api/sign-in/passkey", { response: assertion, ...(purpose ? { purpose } : {}) });
  }

  async function userOf(email: string) {
    return db().selectFrom("users").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
  }

  it("adds a passkey (a discoverable credential, user verification required) and signs in with it alone", async () => {
    const c = await signedIn("pk-alone@example.com");
    const options = PasskeyCreationOptions.parse((await c.post("/api/account/passkeys/options")).json);
    expect(options.rp.id).toBe("127.0.0.1");
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" });
    expect(options.attestation).toBe("none");
    const authenticator = new SoftAuthenticator(ORIGIN);
    const added = await c.post("/api/account/passkeys", { response: authenticator.create(options) });
    expect(added.status).toBe(200);
    expect(added.json.passkey).toMatchObject({ name: "Chrome on Linux", lastUsedAt: null, backedUp: false });
    // The account's first second factor comes with its recovery codes, shown once; the next passkey with none.
    expect(added.json.recoveryCodes).toHaveLength(10);
    const mailed = await fx.smtp.waitFor("pk-alone@example.com");
    expect(mailed.text).toMatch(/passkey/iu);
    expect(await factorsOf(db(), (await userOf("pk-alone@example.com")).id)).toMatchObject({ passkeys: 1 });

    // A second registration of the same account excludes the first passkey.
    const again = PasskeyCreationOptions.parse((await c.post("/api/account/passkeys/options")).json);
    expect(again.excludeCredentials?.map((d) => d.id)).toEqual([added.json.passkey.id]);
    const second = await c.post("/api/account/passkeys", { response: new SoftAuthenticator(ORIGIN).create(again) });
    expect(second.status).toBe(200);
    expect(second.json.recoveryCodes).toBeUndefined();
    expect((await c.get("/api/account/security")).json.passkeys).toHaveLength(2);

    const visitor = await client();
    const usernameless = PasskeyRequestOptions.parse((await visitor.post("/api/sign-in/passkey/options", {})).json);
    expect(usernameless.allowCredentials ?? []).toEqual([]);
    expect(usernameless.userVerification).toBe("required");
    const assertion = authenticator.get(usernameless);
    const answer = await visitor.post("/api/sign-in/passkey", { response: assertion });
    expect(answer.status).toBe(200);
    expect(PasskeySignInAnswer.parse(answer.json).next?.kind).toBeDefined();
    expect((await visitor.get("/api/session")).json.Email).toBe("pk-alone@example.com");
    // Two factors in one (RFC 8176): the session says so, and the passkey's use is recorded.
    const user = await userOf("pk-alone@example.com");
    const session = await db()
      .selectFrom("sessions")
      .select(["amr", "auth_method"])
      .where("user_id", "=", user.id)
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(session.auth_method).toBe("passkey");
    expect(session.amr?.split(" ")).toEqual(expect.arrayContaining(["swk", "user", "mfa"]));
    const row = await db().selectFrom("passkeys").selectAll().where("id", "=", assertion.id).executeTakeFirstOrThrow();
    expect(row.last_used_at).not.toBeNull();
    expect(Number(row.counter)).toBe(1);
  });

  it("refuses a signature counter that does not move forward (a cloned authenticator) and audits it", async () => {
    const c = await signedIn("pk-counter@example.com");
    const authenticator = new SoftAuthenticator(ORIGIN);
    expect((await addPasskey(c, authenticator)).status).toBe(200);
    const first = await passkeySignIn(await client(), authenticator, { step: 5 });
    expect(first.status, first.text).toBe(200);
    expectErrorObject(await passkeySignIn(await client(), authenticator, { step: -2 }), 400, "passkey_invalid");
    expectErrorObject(await passkeySignIn(await client(), authenticator, { step: 0 }), 400, "passkey_invalid");
    const user = await userOf("pk-counter@example.com");
    const refused = await db()
      .selectFrom("audit")
      .select("detail")
      .where("event", "=", "passkey_refused")
      .where("user_id", "=", user.id)
      .execute();
    expect(refused).toHaveLength(2);
    expect(refused[0]?.detail).toMatch(/counter/u);
    // The next genuine use (the clone left the counter at 3: 6 is above the stored 5) still works.
    expect((await passkeySignIn(await client(), authenticator, { step: 3 })).status).toBe(200);
  });

  it("refuses an authenticator without user verification, at registration and at sign-in", async () => {
    const c = await signedIn("pk-uv@example.com");
    const presenceOnly = new SoftAuthenticator(ORIGIN);
    presenceOnly.userVerified = false;
    expectErrorObject(await addPasskey(c, presenceOnly), 400, "passkey_invalid");
    const authenticator = new SoftAuthenticator(ORIGIN);
    expect((await addPasskey(c, authenticator)).status).toBe(200);
    authenticator.userVerified = false;
    const visitor = await client();
    expectErrorObject(await passkeySignIn(visitor, authenticator), 400, "passkey_invalid");
    expect((await visitor.get("/api/session")).status).toBe(204);
  });

  it("refuses another origin (a phishing page) and a challenge used twice", async () => {
    const c = await signedIn("pk-origin@example.com");
    const phished = new SoftAuthenticator("http://login.gatehouse.example.attacker.test");
    expectErrorObject(await addPasskey(c, phished), 400, "passkey_invalid");
    const authenticator = new SoftAuthenticator(ORIGIN);
    expect((await addPasskey(c, authenticator)).status).toBe(200);

    authenticator.origin = "http://evil.localhost:8080";
    expectErrorObject(await passkeySignIn(await client(), authenticator), 400, "passkey_invalid");
    authenticator.origin = ORIGIN;

    const visitor = await client();
    const options = PasskeyRequestOptions.parse((await visitor.post("/api/sign-in/passkey/options", {})).json);
    expect((await visitor.post("/api/sign-in/passkey", { response: authenticator.get(options) })).status).toBe(200);
    // The same challenge once more, with a fresh signature and a higher counter: the challenge is spent.
    const replay = await visitor.post("/api/sign-in/passkey", { response: authenticator.get(options) });
    expectErrorObject(replay, 400, "passkey_invalid");
  });

  it("answers an unknown credential exactly as a bad signature (no enumeration)", async () => {
    const c = await signedIn("pk-enum@example.com");
    const authenticator = new SoftAuthenticator(ORIGIN);
    expect((await addPasskey(c, authenticator)).status).toBe(200);

    const stranger = new SoftAuthenticator(ORIGIN);
    stranger.create({ challenge: "AAAA", rp: { id: "127.0.0.1" }, user: { id: "AAAA" } });
    const unknown = await passkeySignIn(await client(), stranger);

    const visitor = await client();
    const options = PasskeyRequestOptions.parse((await visitor.post("/api/sign-in/passkey/options", {})).json);
    const assertion = authenticator.get(options);
    const forged = {
      ...assertion,
      response: { ...assertion.response, signature: stranger.get(options).response.signature },
    };
    const badSignature = await visitor.post("/api/sign-in/passkey", { response: forged });

    const a = expectErrorObject(unknown, 400, "passkey_invalid");
    const b = expectErrorObject(badSignature, 400, "passkey_invalid");
    expect({ ...a, guid: "", error_guid: "" }).toEqual({ ...b, guid: "", error_guid: "" });
  });

  it("renames and removes a passkey; removal needs a fresh proof, which a passkey gives (step-up)", async () => {
    const c = await signedIn("pk-manage@example.com");
    const authenticator = new SoftAuthenticator(ORIGIN);
    const added = await addPasskey(c, authenticator, "Work laptop");
    const id: string = added.json.passkey.id;
    const renamed = await c.request("PUT", `/api/account/passkeys/${id}`, { name: "  Home   laptop " });
    expect(renamed.status).toBe(200);
    expect(renamed.json.name).toBe("Home laptop");
    expectErrorObject(await c.request("PUT", `/api/account/passkeys/${id}`, { name: "" }), 400, "invalid_request");

    // Another account cannot touch it.
    const other = await signedIn("pk-other@example.com");
    expectErrorObject(await other.request("DELETE", `/api/account/passkeys/${id}`), 404, "not_found");

    // The session's proof grows old: removing needs a step-up, here by the passkey itself.
    const user = await userOf("pk-manage@example.com");
    await db()
      .updateTable("sessions")
      .set({ fresh_at: Date.now() - STEP_UP_MS - 1000 })
      .where("user_id", "=", user.id)
      .execute();
    expectErrorObject(await c.request("DELETE", `/api/account/passkeys/${id}`), 403, "reauthentication_required");
    // A visitor cannot ask for a step-up, and another account's passkey gives none.
    expectErrorObject(
      await (await client()).post("/api/sign-in/passkey/options", { purpose: "reauthenticate" }),
      401,
      "not_authenticated",
    );
    const stepUp = await passkeySignIn(c, authenticator, {}, "reauthenticate");
    expect(stepUp.status).toBe(200);
    expect(stepUp.json.freshUntil).toBeGreaterThan(Date.now());

    await db()
      .insertInto("recovery_codes")
      .values({ code_hash: "f".repeat(64), user_id: user.id, created_at: 1 })
      .execute();
    expect((await c.request("DELETE", `/api/account/passkeys/${id}`)).status).toBe(200);
    // The last second factor went: its recovery codes went with it.
    expect(await factorsOf(db(), user.id)).toEqual({ totp: false, passkeys: 0, recoveryCodesLeft: 0 });
    expectErrorObject(await c.request("DELETE", `/api/account/passkeys/${id}`), 404, "not_found");
  });

  it("refuses a step-up with another account's passkey", async () => {
    const owner = await signedIn("pk-owner@example.com");
    const ownersKey = new SoftAuthenticator(ORIGIN);
    expect((await addPasskey(owner, ownersKey)).status).toBe(200);
    const c = await signedIn("pk-intruder@example.com");
    expectErrorObject(await passkeySignIn(c, ownersKey, {}, "reauthenticate"), 400, "passkey_invalid");
  });

  /**
   * A password sign-in of `email` in this browser that owes the second factor (as the sign-in core records one for
   * an account with a factor): the attempt row keyed by the browser's token, as signin/attempt.ts keys it.
   */
  async function owingSecondFactor(c: Client, email: string) {
    const token = c.cookies.get(sessionCookieName(fx.server.config.publicUrl)) ?? "";
    const user = await userOf(email);
    await db()
      .insertInto("sign_in_attempts")
      .values({
        id: hash("sha256", `sign-in-attempt:${token}`, "hex"),
        user_id: user.id,
        method: "password",
        idp: null,
        amr: "pwd",
        auth_time: Date.now(),
        owes: "second_factor",
        destination: JSON.stringify({ landing: "/account/edit" }),
        expires_at: Date.now() + 60_000,
      })
      .execute();
  }

  it("takes a passkey as the second factor an attempt owes: that account's passkeys only", async () => {
    const owner = await signedIn("pk-second@example.com");
    const ownersKey = new SoftAuthenticator(ORIGIN);
    expect((await addPasskey(owner, ownersKey)).status).toBe(200);
    const stranger = await signedIn("pk-stranger@example.com");
    const strangersKey = new SoftAuthenticator(ORIGIN);
    expect((await addPasskey(stranger, strangersKey)).status).toBe(200);

    const visitor = await client();
    await owingSecondFactor(visitor, "pk-second@example.com");
    const options = PasskeyRequestOptions.parse((await visitor.post("/api/sign-in/passkey/options", {})).json);
    expect(options.allowCredentials?.map((d) => d.id)).toEqual([ownersKey.credentials[0]?.id]);
    // Another account's passkey, even a valid one, is no second factor for this attempt.
    const wrong = await visitor.post("/api/sign-in/passkey", {
      response: strangersKey.get({ challenge: options.challenge }),
    });
    expectErrorObject(wrong, 400, "passkey_invalid");
    expect((await visitor.get("/api/session")).status).toBe(204);

    const answer = await passkeySignIn(visitor, ownersKey);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.next.url).toBe("/account/edit");
    expect((await visitor.get("/api/session")).json.Email).toBe("pk-second@example.com");
    const user = await userOf("pk-second@example.com");
    const session = await db()
      .selectFrom("sessions")
      .select(["amr", "auth_method"])
      .where("user_id", "=", user.id)
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    // The password's proof and the passkey's: two factors.
    expect(session.amr?.split(" ")).toEqual(expect.arrayContaining(["pwd", "swk", "user", "mfa"]));
    expect(session.auth_method).toBe("password");
  });
});
