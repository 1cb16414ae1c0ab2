import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRANDS, loadCatalog } from "@gatehouse/contract";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { linkIn } from "../packages/server/test/smtp.ts";
import {
  adminWith,
  createPerson,
  expectAccessible,
  REGISTER_PASSWORD,
  screenshot,
  signIn,
  stubExternalSites,
  uniqueEmail,
  useMailService,
  visit,
} from "./support.ts";

/**
 * Two brands on two loopback host names (Chromium resolves *.localhost to loopback), each host serving the whole
 * service, as the brands file says. The visitor's language and the brand come from the host and the page, never
 * from PUBLIC_URL (http://localhost:<port>).
 */
function brandsFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "gatehouse-brands-")), "brands.json");
  const sites = [
    { host: "localhost", brand: "default" },
    { host: "cloud.localhost", brand: "cloud" },
    { host: "archviz.localhost", brand: "archviz" },
  ];
  writeFileSync(path, JSON.stringify({ defaultBrand: "default", returnHosts: [], sites }));
  return path;
}

const BRANDS_FILE = brandsFile();
const fx = useMailService(() => ({ BRANDS_FILE }));
const es = await loadCatalog("es");
const jp = await loadCatalog("jp");

/** The service's origin on a brand's host name. */
const on = (host: string) => fx.service.baseUrl.replace("//localhost:", `//${host}:`);

/** Every origin the page's API calls go to. */
function apiOrigins(page: Page): Set<string> {
  const origins = new Set<string>();
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/api/")) origins.add(url.origin);
  });
  return origins;
}

/** Opens a mailed link as from another device: a fresh browser profile, no cookie, no country header. */
async function openFromMail(href: string) {
  const context = await fx.browser.newContext({ locale: "en-US" });
  await stubExternalSites(context);
  const page = await context.newPage();
  await page.goto(href);
  return { context, page };
}

describe("one service, many brand hosts", () => {
  it.each(["cloud", "archviz"] as const)(
    "the %s host shows its brand and signs in, calling its own origin",
    async (id) => {
      const email = uniqueEmail(`host-${id}`);
      await createPerson(
        { email, password: REGISTER_PASSWORD, first: "Ida", last: "Lund", country: "SE" },
        fx.service.databaseUrl,
      );
      const { page, context } = await visit(fx.browser, "/", {}, on(`${id}.localhost`));
      const origins = apiOrigins(page);
      await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
      expect(await page.title()).toBe(`Sign in | ${BRANDS[id].name}`);
      expect((await signIn(page, email, REGISTER_PASSWORD)).status()).toBe(200);
      if (id === "archviz") await page.getByRole("heading", { name: "Authentication complete" }).waitFor();
      expect(await page.getByText("Oops... what a mess.").count()).toBe(0);
      expect([...origins]).toEqual([on(`${id}.localhost`)]);
      await context.close();
    },
  );

  it("signs up in Spanish on the cloud host; the activation link opens there, in Spanish, on another device", async () => {
    const cloud = on("cloud.localhost");
    const email = uniqueEmail("cloud-signup");
    const { page, context } = await visit(fx.browser, "/register", { "cf-ipcountry": "ES" }, cloud);
    const origins = apiOrigins(page);
    await page.getByRole("heading", { name: es.register.title.default, level: 1 }).waitFor();
    expect(await page.title()).toBe(`${es.titles.signUp} | Cloud Render`);
    await page.getByLabel(es.register.email).fill(email);
    await page.getByLabel(es.register.password, { exact: true }).fill(REGISTER_PASSWORD);
    await page.getByRole("button", { name: es.register.continue }).click();
    await page.getByRole("heading", { name: es.register.stepTitle, level: 1 }).waitFor();
    await page.getByLabel(es.register.firstName).fill("Rosa");
    await page.getByLabel(es.register.lastName).fill("Park");
    await page.getByRole("combobox", { name: es.register.country }).selectOption("ES");
    await page.getByText(es.botCheck.verified).waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: es.register.submit }).click();
    await page.getByRole("heading", { name: es.registerComplete.heading }).waitFor();
    expect([...origins]).toEqual([cloud]);
    await context.close();

    const mail = await fx.smtp.waitFor(email);
    expect(mail.text).toContain(es.mail.activation.subject.replace("{{brand}}", "Cloud Render"));
    const link = linkIn(mail, "/account/activate");
    expect(link.origin).toBe(cloud);
    const opened = await openFromMail(link.href);
    await opened.page.getByRole("heading", { name: es.activate.successHeading }).waitFor();
    expect(await opened.page.title()).toBe(`${es.titles.activateAccount} | Cloud Render`);
    expect(await opened.page.getAttribute("html", "lang")).toBe("es");
    await expectAccessible(opened.page);
    await screenshot(opened.page, "brand-host-cloud-activated-es");
    await opened.page.getByRole("link", { name: es.activate.signIn }).click();
    await opened.page.getByRole("heading", { name: es.titles.signIn, level: 1 }).waitFor();
    await opened.page.getByLabel(es.login.email).fill(email);
    await opened.page.getByLabel(es.login.password, { exact: true }).fill(REGISTER_PASSWORD);
    const answer = opened.page.waitForResponse((r) => r.url() === `${cloud}/api/account/login`);
    await opened.page.getByRole("button", { name: es.login.submit, exact: true }).click();
    expect((await answer).status()).toBe(200);
    await opened.context.close();
  });

  it("invites with `user:invite --brand archviz --language jp`: set-up opens on the archviz host in Japanese and ends at Enscape's portal", async () => {
    const archviz = on("archviz.localhost");
    const email = uniqueEmail("invite-archviz");
    // The admin works with the service's own configuration, as an operator runs the CLI beside it.
    const service = { DATABASE_URL: fx.service.databaseUrl, PUBLIC_URL: fx.service.baseUrl, BRANDS_FILE };
    await adminWith(service, "user:invite", "--email", email, "--brand", "archviz", "--language", "jp");
    const mail = await fx.smtp.waitFor(email);
    expect(mail.text).toContain(jp.mail.password_setup.subject.replace("{{brand}}", "Enscape"));
    const link = linkIn(mail, "/account/password-setup");
    expect(link.origin).toBe(archviz);
    const { page, context } = await openFromMail(link.href);
    await page.getByRole("heading", { name: jp.setup.heading }).waitFor();
    expect(await page.title()).toBe(`${jp.titles.setupPassword} | Enscape`);
    expect(await page.getAttribute("html", "lang")).toBe("ja");
    await page.getByLabel(jp.setup.password, { exact: true }).fill("Copper-Lantern-91!");
    await page.getByRole("combobox", { name: jp.setup.marketingSource }).selectOption("Event");
    await page.getByRole("combobox", { name: jp.setup.platformOfInterest }).selectOption("Revit");
    await page.getByRole("combobox", { name: jp.setup.role }).selectOption("Architect");
    await page.getByRole("button", { name: jp.setup.submit }).click();
    await page.getByText(jp.setup.success).waitFor();
    // An invitation has no name or country: the sign-in owes the profile first (issue #24), in Japanese on the host.
    await page.getByText(jp.profile.stepDetails).waitFor();
    await page.getByLabel(jp.profile.firstName).fill("Aiko");
    await page.getByLabel(jp.profile.lastName).fill("Mori");
    await page.getByRole("combobox", { name: jp.profile.country }).selectOption("JP");
    await page.getByRole("button", { name: jp.profile.save }).click();
    await page.waitForURL(BRANDS.archviz.links.portal);
    await context.close();
  });
});
