import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Secret } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAtStandIn } from "../../../scripts/idp/sign-in.ts";
import { type StandInIdp, startStandInIdp } from "../../../scripts/idp/stand-in.ts";
import { createUser, disableUser } from "../src/accounts/users.ts";
import { loadConfig } from "../src/config.ts";
import { sealSecret, totpCode } from "../src/factors/totp.ts";
import { secondFactorsStore } from "../src/store/second-factors.ts";
import { Client, expectErrorObject, mailTo, startServer, type TestServer, tempDir } from "./harness.ts";
import { standInProvidersFile } from "./idps.ts";
import { freePort } from "./ports.ts";
import { linkIn, type ReceivedMail, TestSmtp } from "./smtp.ts";

/**
 * Issue #11: social and corporate sign-in, end to end over HTTP: the real gateway as the relying party of the
 * stand-in identity provider (a second oidc-provider per tenant), whose sign-in form is submitted as a browser would.
 */
let idp: StandInIdp;
let server: TestServer;
let origin: string;
let smtp: TestSmtp;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  idp = await startStandInIdp({ origins: [origin] });
  smtp = await new TestSmtp().start();
  server = await startServer({
    port,
    env: { PUBLIC_URL: origin, IDPS_FILE: standInProvidersFile(idp), SMTP_URL: smtp.url },
  });
});

afterAll(async () => {
  await server?.close();
  await idp?.close();
  await smtp?.stop();
});

/** The link of the latest mail to an address, by its path. */
async function mailedCode(address: string, path: string): Promise<string> {
  const codeIn = (mail: ReceivedMail) => URL.parse(linkIn(mail, path).href)?.searchParams.get("code");
  return (
    codeIn(
      await mailTo({ server, smtp }, address, { nth: "last", having: (mail) => mail.text.includes(`${path}?`) }),
    ) ?? ""
  );
}

interface Person {
  email: string;
  firstName?: string;
  lastName?: string;
  emailVerified?: boolean;
  subject?: string;
  action?: "sign-in" | "cancel" | "fail";
}

/** Starts a sign-in at a provider and comes back to the callback; answers the callback's redirect. */
async function throughProvider(
  client: Client,
  platform: string,
  person: Person,
  body: Record<string, unknown> = {},
): Promise<{ location: URL; callback: URL }> {
  const start = await client.post("/api/account/social/login", { platform, ...body });
  expect(start.status).toBe(200);
  const callback = await signInAtStandIn(start.json.redirect_to, person);
  return { location: await followCallback(client, callback), callback };
}

async function followCallback(client: Client, callback: URL): Promise<URL> {
  expect(callback.origin).toBe(origin);
  const answer = await client.get(callback.pathname + callback.search);
  expect(answer.status).toBe(302);
  expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
  return new URL(answer.headers.get("location") ?? "", origin);
}

const fresh = () => new Client(server.url).start();
let counter = 0;
const unique = (domain = "example.com") => `person${++counter}.${Date.now()}@${domain}`;

describe("social sign-in: a new person", () => {
  it("binds state, nonce and PKCE to the browser and asks for the exact callback", async () => {
    const client = await fresh();
    const start = await client.post("/api/account/social/login", { platform: "google" });
    const url = new URL(start.json.redirect_to);
    expect(url.href.startsWith(idp.issuer("google"))).toBe(true);
    expect(url.searchParams.get("redirect_uri")).toBe(`${origin}/api/federation/google/callback`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("state")?.length).toBeGreaterThan(20);
    expect(url.searchParams.get("nonce")?.length).toBeGreaterThan(20);
    const stored = await server.app.db.selectFrom("federation_flows").selectAll().execute();
    // Nothing usable is stored as it was sent: the state only as its hash.
    expect(stored.some((row) => row.id === url.searchParams.get("state"))).toBe(false);
  });

  it("registers through Google: details from the provider, no activation mail, signed in at once", async () => {
    const client = await fresh();
    const email = unique();
    const { location } = await throughProvider(
      client,
      "google",
      { email, firstName: "Grace", lastName: "Hopper" },
      { continue: "https://www.gatehouse.example/app" },
    );
    expect(location.pathname).toBe("/register/social");
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      platform: "google",
      email,
      firstName: "Grace",
      lastName: "Hopper",
      return_to: "https://www.gatehouse.example/app",
    });
    const pending = await client.get("/api/account/social/pending");
    expect(pending.json).toMatchObject({ kind: "register", platform: "google", email, emailVerified: true });

    const mailsBefore = (await server.app.db.selectFrom("outbox").select("id").execute()).length;
    const created = await client.post("/api/account/social/register", {
      firstName: "Grace",
      lastName: "Hopper",
      countryCode: "US",
      newsletterSubscription: true,
    });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      email,
      fullName: "Grace Hopper",
      activation: false,
      next: { kind: "return", url: "https://www.gatehouse.example/app" },
    });
    const session = await client.get("/api/session");
    expect(session.json).toMatchObject({ Email: email, FirstName: "Grace" });
    expect((await server.app.db.selectFrom("outbox").select("id").execute()).length).toBe(mailsBefore);
    const user = await server.app.db
      .selectFrom("users")
      .selectAll()
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({ status: "active", password_hash: null, country_code: "US", newsletter: 1 });
    // The pending answer is used once.
    expectErrorObject(await client.get("/api/account/social/pending"), 401, "social_invalid_authentication");
    expectErrorObject(
      await client.post("/api/account/social/register", { firstName: "G", lastName: "H", countryCode: "US" }),
      401,
      "social_invalid_authentication",
    );

    // The same person comes back: signed in straight away, whatever the address says now.
    const again = await fresh();
    const back = await throughProvider(again, "google", {
      email: unique(),
      subject: (await identityOf(user.id)).subject,
    });
    // With a return address, through the sign-in page, which goes on from our own origin (so /api/studio/complete
    // and the legacy token, which serve only our own pages' navigations, still serve it).
    const studio = await throughProvider(
      await fresh(),
      "google",
      { email: unique(), subject: (await identityOf(user.id)).subject },
      { continue: "/api/studio/complete" },
    );
    expect(studio.location.pathname).toBe("/");
    const returnTo = new URL(studio.location.searchParams.get("return_to") ?? "", studio.location);
    expect(returnTo.pathname).toBe("/api/studio/complete");
    // No return address: the landing page of this host (the development brands file's: the account page).
    expect(back.location.pathname).toBe("/profile/edit");
    expect((await again.get("/api/session")).json).toMatchObject({ Email: email });
  });

  it("registers through Facebook, whose address is never vouched for: the account waits for its activation mail", async () => {
    const client = await fresh();
    const email = unique();
    const { location } = await throughProvider(client, "facebook", { email, firstName: "Ada", lastName: "Lovelace" });
    expect(location.pathname).toBe("/register/social");
    expect((await client.get("/api/account/social/pending")).json).toMatchObject({
      platform: "facebook",
      emailVerified: false,
    });
    const created = await client.post("/api/account/social/register", {
      firstName: "Ada",
      lastName: "Lovelace",
      countryCode: "GB",
    });
    expect(created.json).toEqual({ email, fullName: "Ada Lovelace", activation: true });
    expect((await client.get("/api/session")).status).toBe(204);
    const user = await server.app.db
      .selectFrom("users")
      .selectAll()
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    expect(user.status).toBe("pending");
    const mails = await server.app.db.selectFrom("outbox").selectAll().where("user_id", "=", user.id).execute();
    expect(mails.map((mail) => mail.kind)).toEqual(["activation"]);
    // Signing in with Facebook before activating says so.
    const later = await fresh();
    const refused = await throughProvider(later, "facebook", { email, subject: (await identityOf(user.id)).subject });
    expect(refused.location.pathname).toBe("/error");
    expect(refused.location.searchParams.get("error_code")).toBe("user_not_active");
  });

  it("signs in through Trimble too (its own issuer, checked on the ID token)", async () => {
    const client = await fresh();
    const { location } = await throughProvider(client, "trimble", { email: unique() });
    expect(location.pathname).toBe("/register/social");
    expect((await client.get("/api/account/social/pending")).json.platform).toBe("trimble");
  });

  it("Cancel ends the pending registration on the server: nothing left to register with (issue #25)", async () => {
    const client = await fresh();
    await throughProvider(client, "google", { email: unique() });
    expect((await client.get("/api/account/social/pending")).status).toBe(200);
    const cancelled = await client.request("DELETE", "/api/account/social/pending");
    expect(cancelled.status).toBe(200);
    // Nothing left to register with (a register call is not made: it would count against the file's register limit).
    expectErrorObject(await client.get("/api/account/social/pending"), 401, "social_invalid_authentication");
    // Again, with nothing pending: the same answer.
    expect((await client.request("DELETE", "/api/account/social/pending")).status).toBe(200);
  });
});

describe("social sign-in: an address that belongs to an account", () => {
  it("offers linking behind the account's password, refuses a wrong one, then signs in with the provider alone", async () => {
    const email = unique();
    const user = await createUser(server.app.db, {
      email,
      password: "Correct-Horse-42",
      firstName: "Li",
      lastName: "Na",
      countryCode: "CN",
    });
    const client = await fresh();
    const { location } = await throughProvider(client, "google", { email: email.toUpperCase() });
    expect(location.pathname).toBe("/link/existing/social");
    expect(location.searchParams.get("email")).toBe(email.toUpperCase());
    expect((await client.get("/api/account/social/pending")).json).toMatchObject({ kind: "link" });

    expectErrorObject(
      await client.post("/api/account/social/link", { email, password: "wrong-password" }),
      401,
      "invalid_authentication",
    );
    expect(await identities(user.id)).toEqual([]);
    // The locked address is the pending one's: another address is no way around the password of this one.
    expectErrorObject(
      await client.post("/api/account/social/link", { email: "someone@example.com", password: "Correct-Horse-42" }),
      401,
      "social_invalid_authentication",
    );
    const linked = await client.post("/api/account/social/link", { email, password: "Correct-Horse-42" });
    expect(linked.json).toEqual({
      RequiredPasswordUpdate: false,
      RequiredProfileUpdate: false,
      next: { kind: "landing", url: "/profile/edit" },
    });
    expect((await client.get("/api/session")).json).toMatchObject({ Email: email });
    expect((await identities(user.id)).map((row) => row.provider)).toEqual(["google"]);

    const again = await fresh();
    const back = await throughProvider(again, "google", { email });
    // No return address: the landing page of this host (the development brands file's: the account page).
    expect(back.location.pathname).toBe("/profile/edit");
    expect((await again.get("/api/session")).json).toMatchObject({ Email: email });
  });

  it("links behind the password of an account with a second factor only once the factor is given (issue #26)", async () => {
    const email = unique();
    const user = await createUser(server.app.db, { email, password: "Correct-Horse-42" });
    const secret = Secret.fromLatin1("a-twenty-byte-secret").base32;
    const sealed = sealSecret(server.config.sessionSecret, user.id, secret);
    await secondFactorsStore.putPendingTotp(server.app.db, user.id, sealed, Date.now());
    await secondFactorsStore.confirmTotp(server.app.db, user.id, sealed, Date.now());
    const client = await fresh();
    await throughProvider(client, "google", { email });

    const linking = await client.post("/api/account/social/link", { email, password: "Correct-Horse-42" });
    expect(linking.json.next.url).toMatch(/^\/login\/second-factor/u);
    // The password alone linked nothing and opened nothing.
    expect(await identities(user.id)).toEqual([]);
    expect((await client.get("/api/session")).status).toBe(204);

    const code = totpCode(secret, Date.now());
    const given = await client.post("/api/sign-in/second-factor", { method: "totp", code });
    // The account owes its profile next (no country yet): the factor is given, so the identity is linked already.
    expect(given.json.next).toEqual({ kind: "step", url: "/profile/edit?required_profile_update=true" });
    expect((await identities(user.id)).map((row) => row.provider)).toEqual(["google"]);
    const attempt = await server.app.db
      .selectFrom("sign_in_attempts")
      .select("amr")
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    expect(attempt?.amr.split(" ")).toEqual(expect.arrayContaining(["fed", "otp", "mfa"]));
  });

  it("never offers linking when the provider does not vouch for the address, or the account never confirmed it", async () => {
    const email = unique();
    await createUser(server.app.db, { email, password: "Correct-Horse-42" });
    for (const [platform, person] of [
      ["google", { email, emailVerified: false }],
      ["facebook", { email }],
    ] as const) {
      const client = await fresh();
      const { location } = await throughProvider(client, platform, person);
      expect(location.pathname).toBe("/error");
      expect(location.searchParams.get("error_code")).toBe("social_account_exists");
      expectErrorObject(await client.get("/api/account/social/pending"), 401, "social_invalid_authentication");
      expectErrorObject(
        await client.post("/api/account/social/link", { email, password: "Correct-Horse-42" }),
        401,
        "social_invalid_authentication",
      );
    }
    const pendingEmail = unique();
    await createUser(server.app.db, { email: pendingEmail, password: "Correct-Horse-42", status: "pending" });
    const { location } = await throughProvider(await fresh(), "google", { email: pendingEmail });
    expect(location.searchParams.get("error_code")).toBe("social_account_exists");
  });

  it("refuses a disabled account with social_user_disabled", async () => {
    const email = unique();
    const user = await createUser(server.app.db, { email, password: "Correct-Horse-42" });
    const client = await fresh();
    await throughProvider(client, "google", { email });
    await client.post("/api/account/social/link", { email, password: "Correct-Horse-42" });
    await disableUser(server.app.db, user);
    const { location } = await throughProvider(await fresh(), "google", { email });
    expect(location.pathname).toBe("/error");
    expect(location.searchParams.get("error_code")).toBe("social_user_disabled");
    expect(location.searchParams.get("error_id")).toMatch(/^[0-9a-f-]{36}$/u);
  });
});

describe("social sign-in: someone else's address (pre-account takeover)", () => {
  /** A stranger registers the victim's address through Facebook (which vouches for no address): a pending account. */
  async function strangerRegisters(email: string) {
    const stranger = await fresh();
    await throughProvider(stranger, "facebook", { email, subject: `stranger-${email}` });
    const created = await stranger.post("/api/account/social/register", {
      firstName: "Eve",
      lastName: "Stranger",
      countryCode: "US",
    });
    expect(created.json).toMatchObject({ activation: true });
    return stranger;
  }
  const strangerSignsIn = async (email: string) =>
    (await throughProvider(await fresh(), "facebook", { email, subject: `stranger-${email}` })).location;

  it("the owner activating from their own mailbox in another browser leaves the stranger no way in", async () => {
    const email = unique();
    await strangerRegisters(email);
    const owner = await fresh();
    const code = await mailedCode(email, "/account/activate");
    expect((await owner.post("/api/account/activate", { activationCode: code })).status).toBe(200);
    const user = await server.app.db
      .selectFrom("users")
      .selectAll()
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    expect(user.status).toBe("active");
    expect(await identities(user.id)).toEqual([]);
    expect((await strangerSignsIn(email)).searchParams.get("error_code")).toBe("social_account_exists");
  });

  it("the one who registered, activating in the same browser, keeps signing in with Facebook", async () => {
    const email = unique();
    const person = await strangerRegisters(email);
    const code = await mailedCode(email, "/account/activate");
    expect((await person.post("/api/account/activate", { activationCode: code })).status).toBe(200);
    expect((await strangerSignsIn(email)).pathname).toBe("/profile/edit");
  });

  it("the owner's password set-up through Forgot your password? removes the stranger's identity", async () => {
    const email = unique();
    await strangerRegisters(email);
    const owner = await fresh();
    await owner.post("/api/account/recover", { email });
    const code = await mailedCode(email, "/account/password-setup");
    const setUp = await owner.post("/api/account/setup_password", {
      code,
      password: "Owner-Chosen-77",
      marketingInfo: { marketingSource: "Event", platformOfInterest: "Revit", role: "Architect" },
    });
    expect(setUp.status).toBe(200);
    expect((await strangerSignsIn(email)).searchParams.get("error_code")).toBe("social_account_exists");
    expect((await (await fresh()).login(email, "Owner-Chosen-77")).status).toBe(200);
  });

  it("the company's sign-in of the owner removes the stranger's identity too", async () => {
    const email = unique("acme.example");
    await strangerRegisters(email);
    const owner = await fresh();
    const start = await owner.post("/api/account/federated/login", { email });
    expect((await followCallback(owner, await signInAtStandIn(start.json.redirect_to, { email }))).pathname).toBe(
      "/profile/edit",
    );
    expect((await strangerSignsIn(email)).searchParams.get("error_code")).toBe("social_account_exists");
  });

  it("an answer whose person registered meanwhile in another browser is refused, not a server error", async () => {
    const subject = `twice-${Date.now()}`;
    const first = await fresh();
    const second = await fresh();
    await throughProvider(first, "google", { email: unique(), subject });
    await throughProvider(second, "google", { email: unique(), subject });
    const details = { firstName: "Ann", lastName: "Lee", countryCode: "US" };
    expect((await first.post("/api/account/social/register", details)).status).toBe(200);
    expectErrorObject(await second.post("/api/account/social/register", details), 401, "social_invalid_authentication");
  });
});

describe("social sign-in: refusals", () => {
  it("lands on the error page when the provider fails, and back on sign-in, calmly, when the person cancels", async () => {
    const failed = await fresh();
    const { location } = await throughProvider(failed, "google", { email: unique(), action: "fail" });
    expect(location.pathname).toBe("/error");
    expect(location.searchParams.get("error_code")).toBe("social_idp_error");
    expect((await failed.get("/api/session")).status).toBe(204);
    // Issue #24 §3: Cancel at the provider (access_denied) is no error: the sign-in page, which says so.
    const cancelled = await fresh();
    const back = await throughProvider(cancelled, "google", { email: unique(), action: "cancel" });
    expect(back.location.pathname).toBe("/");
    expect(back.location.searchParams.get("cancelled")).toBe("google");
    expect(back.location.searchParams.has("error_code")).toBe(false);
    expect((await cancelled.get("/api/session")).status).toBe(204);
  });

  it("refuses a tampered state, a replayed answer, another browser's answer and another issuer's", async () => {
    const client = await fresh();
    const start = await client.post("/api/account/social/login", { platform: "google" });
    const callback = await signInAtStandIn(start.json.redirect_to, { email: unique() });

    const tampered = new URL(callback);
    tampered.searchParams.set("state", "x".repeat(43));
    expect((await followCallback(client, tampered)).searchParams.get("error_code")).toBe(
      "social_invalid_authentication",
    );

    const stranger = await fresh();
    expect((await followCallback(stranger, callback)).searchParams.get("error_code")).toBe(
      "social_invalid_authentication",
    );
    // The stranger's try did not use the flow up: its owner still can, once.
    expect((await followCallback(client, callback)).pathname).toBe("/register/social");
    expect((await followCallback(client, callback)).searchParams.get("error_code")).toBe(
      "social_invalid_authentication",
    );

    // Mix-up (RFC 9207): an answer naming another issuer is refused even with the right state.
    const other = await fresh();
    const second = await other.post("/api/account/social/login", { platform: "google" });
    const answer = await signInAtStandIn(second.json.redirect_to, { email: unique() });
    answer.searchParams.set("iss", idp.issuer("acme"));
    expect((await followCallback(other, answer)).searchParams.get("error_code")).toBe("social_idp_error");
    expect((await other.get("/api/session")).status).toBe(204);
  });

  it("answers 422 for a provider that is not set up or cannot be reached, and 400 for a platform that does not exist", async () => {
    const path = join(tempDir(), "idps.json");
    writeFileSync(
      path,
      JSON.stringify({
        providers: [{ id: "google", issuer: "http://127.0.0.1:9/google", client_id: "x", client_secret: "y" }],
      }),
    );
    const offline = await startServer({ env: { IDPS_FILE: path } });
    try {
      const client = await new Client(offline.url).start();
      expectErrorObject(
        await client.post("/api/account/social/login", { platform: "google" }),
        422,
        "social_idp_error",
      );
      expectErrorObject(
        await client.post("/api/account/social/login", { platform: "trimble" }),
        422,
        "social_idp_error",
      );
      expectErrorObject(
        await client.post("/api/account/social/login", { platform: "myspace" }),
        400,
        "invalid_request",
      );
    } finally {
      await offline.close();
    }
  });

  it("drops a return address outside the allow-list", async () => {
    const client = await fresh();
    const { location } = await throughProvider(
      client,
      "google",
      { email: unique() },
      { continue: "https://evil.example/" },
    );
    expect(location.searchParams.get("return_to")).toBeNull();
  });
});

describe("corporate sign-in", () => {
  it("knows the company by the address's domain", async () => {
    const client = await fresh();
    expect((await client.post("/api/account/login/modes", { username: "ann@ACME.example" })).json).toEqual({
      oidc: true,
      password: false,
    });
    const unknown = await client.post("/api/account/federated/login", { email: "ann@nowhere.example" });
    expectErrorObject(unknown, 404, "no_identity_provider");
    expect(unknown.json.message).toBe("We cannot find a corporate account with that email.");
  });

  it("creates the account just in time, from the company's claims, with the address as login hint", async () => {
    const client = await fresh();
    const email = unique("acme.example");
    const start = await client.post("/api/account/federated/login", {
      email,
      origin: "https://www.gatehouse.example/after",
    });
    const url = new URL(start.json.redirect_to);
    expect(url.href.startsWith(idp.issuer("acme"))).toBe(true);
    expect(url.searchParams.get("login_hint")).toBe(email);
    const callback = await signInAtStandIn(url.href, { email, firstName: "Joan", lastName: "Clarke" });
    const location = await followCallback(client, callback);
    // No country from the company: the profile asks for it first (spec §4), as the sign-in attempt's step; then
    // the sign-in goes on where it was going (issue #24 §3).
    expect(location.pathname).toBe("/profile/edit");
    expect(location.searchParams.get("required_profile_update")).toBe("true");
    expect(location.searchParams.get("return_to")).toBe("https://www.gatehouse.example/after");
    expect((await client.get("/api/session")).status).toBe(204);
    expect((await client.get("/api/account/profile")).json).toMatchObject({ firstName: "Joan", lastName: "Clarke" });
    const saved = await client.request("PUT", "/api/account/profile", {
      firstName: "Joan",
      lastName: "Clarke",
      countryCode: "GB",
    });
    expect(saved.json).toEqual({ next: { kind: "return", url: "https://www.gatehouse.example/after" } });
    expect((await client.get("/api/session")).json).toMatchObject({ Email: email, FirstName: "Joan" });
    const user = await server.app.db
      .selectFrom("users")
      .selectAll()
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({ status: "active", password_hash: null });
    expect((await identities(user.id)).map((row) => row.provider)).toEqual(["acme"]);
  });

  it("takes an unconfirmed account of its domain away from whoever chose its password", async () => {
    const email = unique("acme.example");
    const squatter = await createUser(server.app.db, { email, password: "Squatter-Pass-99", status: "pending" });
    const client = await fresh();
    const start = await client.post("/api/account/federated/login", { email });
    const location = await followCallback(client, await signInAtStandIn(start.json.redirect_to, { email }));
    expect(location.pathname).toBe("/profile/edit");
    const user = await server.app.db
      .selectFrom("users")
      .selectAll()
      .where("id", "=", squatter.id)
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({ status: "active", password_hash: null });
    expectErrorObject(await (await fresh()).login(email, "Squatter-Pass-99"), 401, "invalid_authentication");
  });

  it("links nothing to a disabled account of the company's domain, and says it is disabled", async () => {
    const email = unique("acme.example");
    const user = await createUser(server.app.db, { email, password: "Correct-Horse-42" });
    await disableUser(server.app.db, user);
    const client = await fresh();
    const start = await client.post("/api/account/federated/login", { email });
    const location = await followCallback(client, await signInAtStandIn(start.json.redirect_to, { email }));
    expect(location.pathname).toBe("/corporate_login/error");
    expect(location.searchParams.get("error_code")).toBe("user_disabled");
    expect(await identities(user.id)).toEqual([]);
    expect((await client.get("/api/session")).status).toBe(204);
  });

  it("lets no other subject in by the address alone, and takes no address the company says it never checked", async () => {
    const email = unique("acme.example");
    const client = await fresh();
    const start = await client.post("/api/account/federated/login", { email });
    await followCallback(client, await signInAtStandIn(start.json.redirect_to, { email, subject: "acme-first" }));
    for (const person of [
      { email, subject: "acme-second" },
      { email: unique("acme.example"), emailVerified: false },
    ]) {
      const other = await fresh();
      const again = await other.post("/api/account/federated/login", { email: person.email });
      const location = await followCallback(other, await signInAtStandIn(again.json.redirect_to, person));
      expect(location.pathname).toBe("/corporate_login/error");
      expect(location.searchParams.get("error_code")).toBe("external_idp_error");
      expect((await other.get("/api/session")).status).toBe(204);
    }
  });

  it("refuses an address outside the company's domains, and the company's refusal, on the corporate error page", async () => {
    const client = await fresh();
    const start = await client.post("/api/account/federated/login", { email: unique("acme.example") });
    const outside = await followCallback(client, await signInAtStandIn(start.json.redirect_to, { email: unique() }));
    expect(outside.pathname).toBe("/corporate_login/error");
    expect(outside.searchParams.get("error_code")).toBe("external_idp_error");
    const again = await client.post("/api/account/federated/login", { email: unique("acme.example") });
    const cancelled = await followCallback(
      client,
      await signInAtStandIn(again.json.redirect_to, { email: unique("acme.example"), action: "cancel" }),
    );
    // Cancel at the company's provider: back on the corporate sign-in, calmly (issue #24 §3).
    expect(cancelled.pathname).toBe("/corporate_login");
    expect(cancelled.searchParams.get("cancelled")).toBe("acme");
    expect((await client.get("/api/session")).status).toBe(204);
  });
});

describe("linked identities on Edit account", () => {
  it("lists them and removes one only while another way to sign in remains", async () => {
    const client = await fresh();
    const email = unique();
    await throughProvider(client, "google", { email });
    await client.post("/api/account/social/register", { firstName: "Kim", lastName: "Lee", countryCode: "KR" });
    const listed = await client.get("/api/account/identities");
    expect(listed.json).toMatchObject({
      hasPassword: false,
      identities: [{ provider: "google", name: "Google", email }],
    });
    expectErrorObject(await client.request("DELETE", "/api/account/identities/google"), 409, "identity_last_method");
    expectErrorObject(await client.request("DELETE", "/api/account/identities/facebook"), 404, "not_found");

    const withPassword = unique();
    const user = await createUser(server.app.db, {
      email: withPassword,
      password: "Correct-Horse-42",
      firstName: "Sam",
      lastName: "Park",
      countryCode: "KR",
    });
    const other = await fresh();
    await throughProvider(other, "google", { email: withPassword });
    await other.post("/api/account/social/link", { email: withPassword, password: "Correct-Horse-42" });
    expect((await other.request("DELETE", "/api/account/identities/google")).status).toBe(200);
    expect(await identities(user.id)).toEqual([]);
    expectErrorObject(await (await fresh()).get("/api/account/identities"), 401, "not_authenticated");
  });
});

describe("IDPS_FILE", () => {
  const load = (providers: unknown[], env: Record<string, string> = {}) => {
    const path = join(tempDir(), "idps.json");
    writeFileSync(path, JSON.stringify({ providers }));
    return () =>
      loadConfig({
        NODE_ENV: "test",
        SESSION_SECRET: "x".repeat(32),
        IDPS_FILE: path,
        SMTP_URL: "smtp://m:25",
        ...env,
      });
  };
  const base = { client_id: "a", client_secret: "b" };

  it("names what is wrong with a providers file", () => {
    expect(load([{ id: "acme", issuer: "https://idp.acme.example", ...base }])).toThrow(/needs its e-mail domains/u);
    expect(load([{ id: "google", issuer: "https://accounts.google.com", domains: ["x.example"], ...base }])).toThrow(
      /a social provider has no domains/u,
    );
    expect(load([{ id: "facebook", issuer: "https://www.facebook.com", ...base }])).toThrow(
      /OAuth 2.0 provider needs/u,
    );
    expect(load([{ id: "google", issuer: "http://accounts.google.com", ...base }])).toThrow(/must be https/u);
    expect(
      load([{ id: "google", issuer: "http://127.0.0.1:8090/google", ...base }], { NODE_ENV: "production" }),
    ).toThrow(/must be https/u);
    expect(
      load([
        { id: "a1", issuer: "https://a.example", domains: ["same.example"], ...base },
        { id: "a2", issuer: "https://b.example", domains: ["same.example"], ...base },
      ]),
    ).toThrow(/belongs to two providers/u);
  });

  it("shows a provider's button only when the brand's flag is on and the provider is set up", async () => {
    const brands = join(tempDir(), "brands.json");
    writeFileSync(
      brands,
      JSON.stringify({
        defaultBrand: "default",
        returnHosts: [],
        sites: [
          {
            host: "127.0.0.1",
            brand: "default",
            flags: { SOCIAL_REGISTER: true, TRIMBLE_LOGIN: true, CORPORATE_LOGIN: true },
          },
        ],
      }),
    );
    const onlyGoogle = join(tempDir(), "idps.json");
    writeFileSync(
      onlyGoogle,
      JSON.stringify({ providers: [{ id: "google", issuer: "https://accounts.google.com", ...base }] }),
    );
    const page = await startServer({ env: { BRANDS_FILE: brands, IDPS_FILE: onlyGoogle } });
    try {
      const html = await (await fetch(`${page.url}/`)).text();
      const settings = JSON.parse(
        /<script id="[^"]+" type="application\/json">(.*?)<\/script>/su.exec(html)?.[1] ?? "{}",
      );
      expect(settings.socialPlatforms).toEqual(["google"]);
      expect(settings.flags).toMatchObject({ SOCIAL_REGISTER: true, TRIMBLE_LOGIN: false, CORPORATE_LOGIN: false });
    } finally {
      await page.close();
    }
  });
});

async function identities(userId: string) {
  return server.app.db.selectFrom("external_identities").selectAll().where("user_id", "=", userId).execute();
}

async function identityOf(userId: string) {
  const [row] = await identities(userId);
  if (!row) throw new Error("no identity");
  return row;
}
