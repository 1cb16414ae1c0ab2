import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, createPerson, devMail, launch, screenshot, uniqueEmail, visit } from "./support.ts";

/**
 * Issue #25 "Language and mail": a reset asked on a German page is mailed in German and its link opens a German
 * page; the dev mailbox shows the brand's logo under its own Content-Security-Policy. The e2e service has no
 * SMTP, so mail is read where a developer reads it: the dev mailbox.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

/** The cloud brand's host (the default brands file maps cloud.localhost to it): its logo is on another origin. */
const cloudBase = () => baseUrl().replace("//localhost:", "//cloud.localhost:");

/** The dev mailbox's address of the newest mail to a recipient, once it is there. */
async function mailboxEntry(recipient: string): Promise<string> {
  return (await devMail(recipient)).url;
}

/** Every Content-Security-Policy violation the page reports, from the console and the DOM event. */
function recordViolations(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (m) => void (/Content Security Policy/iu.test(m.text()) && seen.push(m.text())));
  return seen;
}

describe("mail in the language of the page the person acted on", () => {
  it("a reset asked on a German page: German mail with the brand's logo, and a German page behind its link", async () => {
    const email = uniqueEmail("mail-de");
    // The account itself speaks English (user:create's default): the page, not the account, decides.
    await createPerson({ email, password: "Granite-Kettle-58", first: "Ida", last: "Lund", country: "DE" });

    const asking = await visit(browser, "/account/recover", {}, cloudBase());
    await asking.page.getByRole("combobox", { name: "Language" }).selectOption("de");
    await asking.page.getByLabel("E-Mail-Adresse").fill(email);
    await asking.page.getByRole("button", { name: "Link senden" }).click();
    await asking.page.getByRole("heading", { name: "Vielen Dank" }).waitFor();
    await asking.context.close();

    // The mail, as the dev mailbox shows it: German, and the cloud logo from the cloud brand's own origin.
    const mailbox = await visit(browser, "about:blank");
    const violations = recordViolations(mailbox.page);
    await mailbox.page.goto(await mailboxEntry(email));
    await mailbox.page.getByText("Guten Tag Ida Lund,").waitFor();
    expect(await mailbox.page.title()).toContain("Setzen Sie Ihr Passwort");
    const logo = mailbox.page.getByRole("img").first();
    expect(new URL((await logo.getAttribute("src")) ?? "").origin).toBe(cloudBase());
    await mailbox.page.waitForFunction(() => {
      const img = document.querySelector("img");
      return img?.complete === true;
    });
    expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    expect(violations).toEqual([]);
    await screenshot(mailbox.page, "mail-language-dev-mailbox-de");
    const link = await mailbox.page.getByRole("link", { name: "Passwort zurücksetzen" }).getAttribute("href");
    await mailbox.context.close();

    // Opened where the mail is read (a fresh browser, no cookie): a German page, and no saved choice made for it.
    const mailed = new URL(link ?? "");
    expect(mailed.searchParams.get("lang")).toBe("de");
    const opened = await visit(browser, "about:blank");
    await opened.page.goto(mailed.href);
    await opened.page.getByRole("heading", { name: "Wählen Sie ein neues Passwort" }).waitFor();
    expect(await opened.page.evaluate(() => document.documentElement.lang)).toBe("de");
    const cookies = await opened.context.cookies();
    expect(cookies.find((c) => c.name === "lang")).toBeUndefined();
    await opened.context.close();
  });
});
