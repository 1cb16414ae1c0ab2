import { RATE_LIMITS } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAtStandIn } from "../../../scripts/idp/sign-in.ts";
import { type StandInIdp, startStandInIdp } from "../../../scripts/idp/stand-in.ts";
import { linkIdentity } from "../src/federation/accounts.ts";
import { Client, expectErrorObject, mailTo, startServer, type TestServer } from "./harness.ts";
import { standInProvidersFile } from "./idps.ts";
import { freePort } from "./ports.ts";
import { linkIn, type ReceivedMail, TestSmtp } from "./smtp.ts";

/**
 * Issue #25: an account made through a provider (no password) asks Edit account for a set-up link, the invitation's
 * flow; its linked methods go only while another way in stays, decided atomically. Over HTTP, against the real
 * gateway as the relying party of the stand-in identity provider, with mail through a test SMTP server.
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

const fresh = () => new Client(server.url).start();
const unique = () => `person.${Date.now()}.${Math.random().toString(36).slice(2)}@example.com`;

/** The code of the latest mail to an address with a link to the path. */
async function mailedCode(address: string, path: string): Promise<string> {
  const codeIn = (mail: ReceivedMail) => URL.parse(linkIn(mail, path).href)?.searchParams.get("code");
  return (
    codeIn(
      await mailTo({ server, smtp }, address, { nth: "last", having: (mail) => mail.text.includes(`${path}?`) }),
    ) ?? ""
  );
}

/** A new person through the stand-in Google, registered: an account without a password, signed in. */
async function throughGoogle(client: Client, email: string): Promise<void> {
  const start = await client.post("/api/account/social/login", { platform: "google" });
  expect(start.status).toBe(200);
  const callback = await signInAtStandIn(start.json.redirect_to, { email });
  expect((await client.get(callback.pathname + callback.search)).status).toBe(302);
  const made = await client.post("/api/account/social/register", {
    firstName: "Kim",
    lastName: "Lee",
    countryCode: "KR",
  });
  expect(made.status, made.text).toBe(200);
}

async function identities(userId: string) {
  return server.app.db.selectFrom("external_identities").selectAll().where("user_id", "=", userId).execute();
}

async function userIdOf(email: string): Promise<string> {
  const row = await server.app.db
    .selectFrom("users")
    .select("id")
    .where("email_normalized", "=", email.toLowerCase())
    .executeTakeFirstOrThrow();
  return row.id;
}

describe("a password for an account made with a provider (issue #25)", () => {
  const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));
  // One person through Google for the whole block (each round trip counts against the federation rate limit).
  let person: { client: Client; email: string; userId: string };

  beforeAll(async () => {
    const client = await fresh();
    const email = unique();
    await throughGoogle(client, email);
    person = { client, email, userId: await userIdOf(email) };
  });

  it("a double remove at once leaves one way in: one succeeds, the other is refused", async () => {
    const { client, userId } = person;
    await linkIdentity(server.app.db, userId, {
      provider: "facebook",
      subject: `fb-${userId}`,
      email: null,
      linked_at: Date.now(),
    });
    const answers = await Promise.all([
      client.request("DELETE", "/api/account/identities/google"),
      client.request("DELETE", "/api/account/identities/facebook"),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(await identities(userId)).toHaveLength(1);
  });

  it("mails a set-up link, CSRF-checked; the password it sets makes the last provider removable", async () => {
    const { client, email, userId } = person;
    expect((await client.get("/api/account/identities")).json).toMatchObject({ hasPassword: false });
    // A forged cross-site post (no CSRF token) is refused and mails nothing (ASVS 3.5.1).
    expectErrorObject(
      await client.post("/api/account/password/setup-link", {}, { "x-csrf-token": "" }),
      403,
      "csrf_invalid",
    );
    const asked = await client.post("/api/account/password/setup-link", {});
    expect(asked).toMatchObject({ status: 200, json: {} });
    const code = await mailedCode(email, "/account/password-setup");
    expect(mailsTo(email).at(-1)?.text).toContain("You asked to set a password for your Gatehouse account");

    // Not an invitation: the page asks no survey, and the password alone sets it.
    expect((await client.get(`/api/account/recover/${code}`)).json).toEqual({ status: "valid", survey: false });
    const setUp = await client.post("/api/account/setup_password", { code, password: "Amber-Lantern-Kite-73" });
    expect(setUp.status, setUp.text).toBe(200);
    expect((await client.get("/api/account/identities")).json).toMatchObject({ hasPassword: true });
    const [left] = await identities(userId);
    expect((await client.request("DELETE", `/api/account/identities/${left?.provider}`)).status).toBe(200);
    expect(await identities(userId)).toEqual([]);
  });

  it("says nothing new: an account with a password gets the same answer and no mail", async () => {
    const { client, email } = person;
    const before = mailsTo(email).length;
    const asked = await client.post("/api/account/password/setup-link", {});
    expect(asked).toMatchObject({ status: 200, json: {} });
    await server.app.services.mail.runOnce();
    expect(mailsTo(email)).toHaveLength(before);
    expectErrorObject(await (await fresh()).post("/api/account/password/setup-link", {}), 401, "not_authenticated");
  });

  it("is rate-limited per client address, as the other mail sends", async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= RATE_LIMITS.setupLink.max; i++) {
      statuses.push((await person.client.post("/api/account/password/setup-link", {})).status);
    }
    expect(statuses.at(-1)).toBe(429);
  });
});
