import { HostSettings, SESSION_LINK_MARKER_COOKIE } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../src/app.ts";
import { findSession, sweepSessions } from "../src/sessions/sessions.ts";
import { startServer, type TestServer } from "./harness.ts";
import { BRAND, Browser, CENTRAL } from "./host-browser.ts";
import { createPerson } from "./oidc-harness.ts";

/** A host that serves the app but is not in the brands file (an alias, an address): unknown hosts get the default brand. */
const ALIAS = "http://gatehouse-alias.example:8080";
const MINUTE = 60_000;

describe("linked sessions: which hosts take part, one idle time per sign-in, the marker after a sign-in (issue #10 §5)", () => {
  let server: TestServer;
  let app: App;
  beforeAll(async () => {
    server = await startServer({ env: { LINKED_SESSIONS: "true" } });
    app = server.app;
  });
  afterAll(() => server.close());

  const person = async () => (await createPerson(app)).email;

  async function settingsOf(origin: string) {
    const url = new URL(origin);
    const page = await app.inject({ method: "GET", url: "/", headers: { host: url.host } });
    const json = /<script id="gatehouse-settings" type="application\/json">(.*?)<\/script>/su.exec(page.body)?.[1];
    return HostSettings.parse(JSON.parse(json ?? "{}"));
  }

  it("leaves a host outside the brands file out: its page does not go to the link, its session is Linked", async () => {
    // It has no origin in the brands file a code could be bound to, so every leg of the link refuses it (400): a
    // page sent there would stop on an error at every load instead of showing the app.
    expect((await settingsOf(ALIAS)).linkedSessions).toBe(false);
    const browser = new Browser(app);
    await browser.signIn(ALIAS, await person());
    expect((await browser.session(ALIAS)).Linked).toBe(true);
    // The brand hosts of the brands file still link.
    expect((await settingsOf(BRAND)).linkedSessions).toBe(true);
    expect((await settingsOf(CENTRAL)).linkedSessions).toBe(false);
  });

  it("a sign-in's linked sessions idle out together: activity on a brand host keeps the central session", async () => {
    const browser = new Browser(app);
    await browser.signIn(CENTRAL, await person());
    await browser.linkFrom(BRAND, CENTRAL, "/");
    const brandToken = browser.jar("cloud.localhost").get("gh_session") as string;
    const start = Date.now();
    // The person keeps using the brand host for two and a half hours; the central host sees nothing of it.
    for (let minutes = 30; minutes <= 150; minutes += 30) {
      expect(await findSession(app.db, brandToken, start + minutes * MINUTE)).toBeDefined();
    }
    await sweepSessions(app.db, start + 150 * MINUTE);
    const stillThere = await findSession(app.db, brandToken, start + 150 * MINUTE);
    expect(stillThere).toBeDefined();
    // Signed in on one brand is signed in on all: the central host (and through it every other brand) still holds it.
    const centralToken = browser.jar("localhost").get("gh_session") as string;
    expect(await findSession(app.db, centralToken, start + 150 * MINUTE)).toBeDefined();
  });

  it("a sign-in on a brand host lifts its marker, so the next page load carries the sign-in to the central host", async () => {
    const browser = new Browser(app);
    // A visitor's page load asked the central host: nobody there, and the marker stops a loop for a while.
    await browser.linkFrom(BRAND, CENTRAL, "/");
    expect(browser.jar("cloud.localhost").get(SESSION_LINK_MARKER_COOKIE)).toBe("1");
    // Then the person signs in here (any way: the password, an activation link, a password set-up).
    await browser.signIn(BRAND, await person());
    expect((await browser.session(BRAND)).Linked).toBe(false);
    expect(browser.jar("cloud.localhost").has(SESSION_LINK_MARKER_COOKIE)).toBe(false);
  });

  it("keeps the latest sign-in of the browser: an older one a brand host still holds does not replace the central one", async () => {
    const older = await createPerson(app);
    const newer = await createPerson(app);
    const browser = new Browser(app);
    // Signed in on the brand host without passing the central host (an activation link, the legacy flow)…
    await browser.signIn(BRAND, older.email);
    // …then, later, someone signs in on the central host.
    await browser.signIn(CENTRAL, newer.email);
    expect((await browser.session(BRAND)).Linked).toBe(false);
    // The brand host's page carries its session to the central host (web app/session-link.ts linkThroughCentral).
    const trail = await browser.linkFrom(CENTRAL, new URL(BRAND).origin, `${BRAND}/profile/edit`);
    expect(trail.at(-1)).toBe(`${BRAND}/profile/edit`);
    expect((await browser.session(CENTRAL)).UserGUID).toBe(newer.id);
    expect(await browser.session(BRAND)).toMatchObject({ UserGUID: newer.id, Linked: true });
  });
});
