import { routeUrl } from "@gatehouse/contract";
import { expect, it } from "vitest";
import { issueDeviceCookie } from "../src/accounts/device-cookies.ts";
import { createUser, deleteUser } from "../src/accounts/users.ts";
import { deviceCookieName } from "../src/http/session.ts";
import { learnBrowser } from "../src/signin/known-browsers.ts";
import { Client, describeDatabases, freshPostgres, useMailServer } from "./harness.ts";
import { linkIn } from "./smtp.ts";

const PASSWORD = "Granite-Kettle-58";
const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const SAFARI_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15";

/**
 * Issue #27: a sign-in from a browser that never signed in to the account mails the person once, with the device,
 * the country, the time and a link to the security page; never for the account's first browser, never twice for one.
 */
describeDatabases([
  ["SQLite", async () => undefined],
  ["PostgreSQL", freshPostgres],
])("the new-browser mail on %s", (_name, database) => {
  const fx = useMailServer(database);
  let ip = 0;
  const browser = (userAgent: string, country: string, headers: Record<string, string> = {}) =>
    new Client(fx.server.url, {
      "x-forwarded-for": `203.0.113.${(++ip % 250) + 1}`,
      "user-agent": userAgent,
      "cf-ipcountry": country,
      ...headers,
    }).start();
  const person = (email: string) =>
    createUser(fx.server.app.db, { email, password: PASSWORD, firstName: "Ann", lastName: "Lee", countryCode: "DE" });
  const signIn = async (c: Client, email: string) => {
    const answer = await c.login(email, PASSWORD);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.next.kind).not.toBe("step");
  };
  /** The new-browser mails queued for an account (the outbox keeps them once sent, in development and tests). */
  const mailsOf = async (userId: string) =>
    fx.server.app.db
      .selectFrom("outbox")
      .select(["text_body", "subject"])
      .where("user_id", "=", userId)
      .where("kind", "=", "new_browser_sign_in")
      .execute();
  const knownOf = async (userId: string) =>
    fx.server.app.db.selectFrom("known_browsers").select("device_id").where("user_id", "=", userId).execute();

  it("sends nothing for the first browser, one mail for a second, and none when that one signs in again", async () => {
    const user = await person("ann.browsers@example.com");
    const first = await browser(FIREFOX_WINDOWS, "DE");
    await signIn(first, user.email);
    expect(await mailsOf(user.id)).toEqual([]);
    expect(await knownOf(user.id)).toHaveLength(1);

    // Another browser, without a device cookie, from France.
    const second = await browser(SAFARI_MAC, "FR");
    await signIn(second, user.email);
    expect(await mailsOf(user.id)).toHaveLength(1);
    const mail = await fx.smtp.waitFor(user.email);
    expect(mail.text).toContain("Safari 17 (macOS");
    expect(mail.text).toContain("Country: France");
    expect(mail.text).toMatch(/Time: [A-Z][a-z]+ \d{1,2}, \d{4}.*\(UTC\)/u);
    expect(mail.text).toContain("change your password");
    const link = linkIn(mail, routeUrl("ACCOUNT_SECURITY"));
    expect(link.origin).toBe(fx.server.config.brandOrigins.default);
    expect(link.searchParams.get("lang")).toBe("en");

    // Both browsers again: known, so no more mail.
    await signIn(second, user.email);
    expect((await second.post("/api/account/logout")).status).toBe(200);
    await signIn(second, user.email);
    await signIn(first, user.email);
    expect(await mailsOf(user.id)).toHaveLength(1);
    expect(await knownOf(user.id)).toHaveLength(2);
  });

  it("says it in the page's language: the country's name and the time in German", async () => {
    const user = await person("ann.sprache@example.com");
    await signIn(await browser(FIREFOX_WINDOWS, "DE"), user.email);
    await signIn(await browser(SAFARI_MAC, "FR", { "accept-language": "de-DE,de;q=0.9" }), user.email);
    const [mail] = await mailsOf(user.id);
    expect(mail?.text_body).toContain("Land: Frankreich");
    expect(mail?.text_body).toMatch(/Zeitpunkt: \d{1,2}\. [A-ZÄÖÜ][a-zäöü]+ \d{4}.*\(UTC\)/u);
  });

  it("sends one mail for two sign-ins at once of one browser new to the account", async () => {
    const user = await person("ann.race@example.com");
    await signIn(await browser(FIREFOX_WINDOWS, "DE"), user.email);
    // A browser that holds a device cookie for the account from before this feature (so both sign-ins keep its id),
    // but that the account has not learnt yet.
    const cookie = issueDeviceCookie(fx.server.config.sessionSecret, user.email);
    const racers = await Promise.all([browser(SAFARI_MAC, "FR"), browser(SAFARI_MAC, "FR")]);
    for (const c of racers) c.cookies.set(deviceCookieName(fx.server.config.publicUrl), cookie);
    const answers = await Promise.all(racers.map((c) => c.login(user.email, PASSWORD)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(await mailsOf(user.id)).toHaveLength(1);
    expect(await knownOf(user.id)).toHaveLength(2);
  });

  it("lets only the insert that adds the browser mail, however many learn it at once", async () => {
    const user = await person("ann.insert@example.com");
    const site = { brand: "default" as const, origin: fx.server.config.brandOrigins.default };
    const seen = { userAgent: SAFARI_MAC, country: "FR", site };
    // Each in a transaction of its own, as each sign-in's session is opened in one (signin/attempt.ts).
    const learn = (deviceId: string) =>
      fx.server.app.db.transaction().execute((trx) => learnBrowser(trx, user, { ...seen, deviceId }));
    expect(await learn("first-browser-id-00000")).toBe(false);
    const mailed = await Promise.all(Array.from({ length: 6 }, () => learn("second-browser-id-0000")));
    expect(mailed.filter(Boolean)).toHaveLength(1);
    expect(await mailsOf(user.id)).toHaveLength(1);
  });

  it("forgets the account's browsers when the account is deleted", async () => {
    const user = await person("ann.gone@example.com");
    await signIn(await browser(FIREFOX_WINDOWS, "DE"), user.email);
    await signIn(await browser(SAFARI_MAC, "FR"), user.email);
    expect(await knownOf(user.id)).toHaveLength(2);
    await deleteUser(fx.server.app.db, user);
    expect(await knownOf(user.id)).toEqual([]);
  });
});
