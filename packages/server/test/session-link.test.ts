import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import type { App } from "../src/app.ts";
import { startServer, type TestServer } from "./harness.ts";
import { BRAND, Browser, CENTRAL, OTHER_BRAND, PASSWORD } from "./host-browser.ts";
import { createPerson } from "./oidc-harness.ts";

describe("linked sessions across brand hosts (issue #10 §5)", () => {
  let server: TestServer;
  let app: App;
  beforeAll(async () => {
    server = await startServer({ env: { LINKED_SESSIONS: "true" } });
    app = server.app;
  });
  afterAll(() => server.close());

  it("carries a sign-in on the central host to a brand host, which then says Linked", async () => {
    const { email, id } = await createPerson(app);
    const browser = new Browser(app);
    await browser.signIn(CENTRAL, email);
    expect((await browser.session(CENTRAL)).Linked).toBe(true);
    expect(await browser.session(BRAND)).toBeNull();

    const trail = await browser.linkFrom(BRAND, CENTRAL, "/profile/edit");
    expect(trail.at(-1)).toBe(`${BRAND}/profile/edit`);
    expect(trail.some((address) => new URL(address).origin === CENTRAL)).toBe(true);
    const linked = await browser.session(BRAND);
    expect(linked).toMatchObject({ UserGUID: id, Linked: true });
    // Its own session, its own cookie: not the central host's token.
    expect(browser.jar("cloud.localhost").get("gh_session")).not.toBe(browser.jar("localhost").get("gh_session"));
  });

  it("carries a sign-in on a brand host to the central host, and from there to another brand", async () => {
    const { email, id } = await createPerson(app);
    const browser = new Browser(app);
    await browser.signIn(BRAND, email);
    expect((await browser.session(BRAND)).Linked).toBe(false);
    // The brand host's page sends the browser to the central host's link, which asks the brand host to give.
    const trail = await browser.linkFrom(CENTRAL, BRAND, `${BRAND}/profile/edit`);
    expect(trail.at(-1)).toBe(`${BRAND}/profile/edit`);
    expect((await browser.session(CENTRAL)).UserGUID).toBe(id);
    expect((await browser.session(BRAND)).Linked).toBe(true);

    await browser.linkFrom(OTHER_BRAND, CENTRAL, "/");
    expect(await browser.session(OTHER_BRAND)).toMatchObject({ UserGUID: id, Linked: true });
  });

  it("signing out on any host ends every session of the sign-in", async () => {
    const { email } = await createPerson(app);
    const browser = new Browser(app);
    await browser.signIn(CENTRAL, email);
    await browser.linkFrom(BRAND, CENTRAL, "/");
    await browser.linkFrom(OTHER_BRAND, CENTRAL, "/");
    expect(await browser.session(OTHER_BRAND)).not.toBeNull();

    await browser.session(BRAND);
    expect((await browser.request("POST", `${BRAND}/api/account/logout`, {})).status).toBe(200);
    expect(await browser.session(BRAND)).toBeNull();
    expect(await browser.session(CENTRAL)).toBeNull();
    expect(await browser.session(OTHER_BRAND)).toBeNull();
  });

  it("a visitor's round trip brings no session, marks the host checked, and ends where it began", async () => {
    const browser = new Browser(app);
    const trail = await browser.linkFrom(BRAND, CENTRAL, "/register");
    expect(trail.at(-1)).toBe(`${BRAND}/register`);
    expect(trail.some((address) => address.includes("code="))).toBe(false);
    expect(await browser.session(BRAND)).toBeNull();
    expect(browser.jar("cloud.localhost").get("gatehouse_link_checked")).toBe("1");
  });

  it("carries no unfinished sign-in: a person who owes a step is a visitor on every host until it is done", async () => {
    const { email } = await createPerson(app, { requirePasswordUpdate: true });
    const browser = new Browser(app);
    await browser.signIn(CENTRAL, email);
    await browser.linkFrom(BRAND, CENTRAL, "/");
    expect(await browser.session(BRAND)).toBeNull();
    expect((await browser.request("GET", `${BRAND}/api/account/profile`)).json?.error_code).toBe("not_authenticated");
  });

  it("uses a code once, for the origin and the browser it was made for, within a minute", async () => {
    const { email } = await createPerson(app);
    const victim = new Browser(app);
    const attacker = new Browser(app);
    await attacker.signIn(CENTRAL, email);

    // The attacker's own round trip, stopped before the redeem: a code for the attacker's session.
    const start = await attacker.request(
      "GET",
      `${BRAND}/api/session/link/start?${new URLSearchParams({ from: CENTRAL, return_to: "/" })}`,
    );
    const give = await attacker.request("GET", String(start.location));
    const redeem = String(give.location);
    expect(new URL(redeem).searchParams.get("code")).toBeTruthy();

    // Login CSRF: the victim's browser, sent to the redeem address, holds no state for it and gets no session.
    await victim.follow(redeem);
    expect(await victim.session(BRAND)).toBeNull();
    // Nor does a host the code was not made for (another brand) accept it.
    const elsewhere = redeem.replace(BRAND, OTHER_BRAND);
    await attacker.follow(elsewhere);
    expect(await attacker.session(OTHER_BRAND)).toBeNull();
    // Spent by those tries: even the browser it was made for cannot use it now.
    await attacker.follow(redeem);
    expect(await attacker.session(BRAND)).toBeNull();

    // A fresh one works once, and not twice.
    const again = await attacker.request(
      "GET",
      String(
        (
          await attacker.request(
            "GET",
            String(
              (
                await attacker.request(
                  "GET",
                  `${BRAND}/api/session/link/start?${new URLSearchParams({ from: CENTRAL, return_to: "/" })}`,
                )
              ).location,
            ),
          )
        ).location,
      ),
    );
    expect(again.status).toBe(302);
    expect(await attacker.session(BRAND)).not.toBeNull();
  });

  it("refuses hosts that are not the brands file's, a round trip between two brand hosts, and a foreign return address", async () => {
    const browser = new Browser(app);
    const starts = [
      { from: "http://evil.example", return_to: "/" },
      { from: OTHER_BRAND, return_to: "/" },
      { from: CENTRAL, return_to: "https://evil.example/" },
      { from: CENTRAL, return_to: "//evil.example/" },
      { from: BRAND, return_to: "/" },
    ];
    for (const query of starts) {
      const answer = await browser.request("GET", `${BRAND}/api/session/link/start?${new URLSearchParams(query)}`);
      expect([answer.status, answer.json?.error_code], JSON.stringify(query)).toEqual([400, "invalid_request"]);
      expect(answer.json?.guid).toBeTruthy();
    }
    const give = await browser.request(
      "GET",
      `${CENTRAL}/api/session/link/give?${new URLSearchParams({ to: "http://evil.example", state: "x".repeat(43), return_to: "/" })}`,
    );
    expect(give.status).toBe(400);
    // A host the brands file does not list has no origin to link.
    const unknown = await browser.request(
      "GET",
      `http://unknown.example:8080/api/session/link/start?${new URLSearchParams({ from: CENTRAL, return_to: "/" })}`,
    );
    expect(unknown.status).toBe(400);
  });

  it("sends codes with no-store and no Referer", async () => {
    const { email } = await createPerson(app);
    const browser = new Browser(app);
    await browser.signIn(CENTRAL, email);
    const start = await browser.request(
      "GET",
      `${BRAND}/api/session/link/start?${new URLSearchParams({ from: CENTRAL, return_to: "/" })}`,
    );
    const give = await browser.request("GET", String(start.location));
    expect(give.location).toContain("code=");
    expect(give.headers["referrer-policy"]).toBe("no-referrer");
    expect(give.headers["cache-control"]).toBe("no-store");
  });
});

describe("linked sessions switched off (the default)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("answers 404 for the link and Linked: true for every session", async () => {
    const browser = new Browser(server.app);
    const email = `${randomUUID()}@example.com`;
    await createUser(server.app.db, { email, password: PASSWORD, firstName: "A", lastName: "B", countryCode: "DE" });
    await browser.signIn(BRAND, email);
    expect((await browser.session(BRAND)).Linked).toBe(true);
    const answer = await browser.request(
      "GET",
      `${BRAND}/api/session/link/start?${new URLSearchParams({ from: CENTRAL, return_to: "/" })}`,
    );
    expect(answer.status).toBe(404);
  });
});
