import { BRANDS, LANGUAGE_CODES, type Language, loadCatalog, lookup } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { MAIL_KINDS, type MailKind } from "../src/mail/kinds.ts";
import { renderMail } from "../src/mail/render.ts";
import { Client, startServer, type TestServer } from "./harness.ts";

/** Issue #25: mail speaks the language of the page the person acted on; the account's only where there is none. */
describe("the language of mail a person causes from a page", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    // The dev mailbox erases a farewell once "delivered": without the worker every mail stays to be read.
    await server.app.services.mail.stop();
  });
  afterAll(() => server.close());

  const PASSWORD = "correct horse battery";
  const person = (email: string, language: string, status: "active" | "pending" = "active") =>
    createUser(server.app.db, {
      email,
      password: PASSWORD,
      status,
      language,
      firstName: "Ann",
      lastName: "Lee",
      countryCode: "DE",
    });

  /** A page in a language: the web app sends it as Accept-Language on every call (api/client.ts). */
  const page = (acceptLanguage?: string) =>
    new Client(server.url, acceptLanguage ? { "accept-language": acceptLanguage } : {}).start();

  /** The newest mail of a kind to an address: its language (by its subject) and its link. */
  async function newest(email: string, kind: MailKind): Promise<{ language: Language | undefined; link: URL }> {
    const row = await server.app.db
      .selectFrom("outbox")
      .selectAll()
      .where("recipient", "=", email)
      .where("kind", "=", kind)
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    const found = /https?:\/\/\S+/u.exec(row.text_body)?.[0];
    if (!found) throw new Error(`no link in ${row.text_body}`);
    return { language: await languageOfSubject(kind, row.subject), link: new URL(found) };
  }

  async function languageOfSubject(kind: MailKind, subject: string): Promise<Language | undefined> {
    for (const language of LANGUAGE_CODES) {
      const template = lookup(await loadCatalog(language), `mail.${kind}.subject`) ?? "";
      if (template.replace("{{brand}}", BRANDS.default.name) === subject) return language;
    }
    return undefined;
  }

  it("a reset asked on a German page: German mail, and its link opens the page in German", async () => {
    await person("reset-de@example.com", "en");
    const c = await page("de");
    expect((await c.post("/api/account/recover", { email: "reset-de@example.com" })).status).toBe(200);
    const mail = await newest("reset-de@example.com", "password_reset");
    expect(mail.language).toBe("de");
    expect(mail.link.searchParams.get("lang")).toBe("de");
  });

  it("the page's language comes before the cookie; an unknown one, or none, keeps the account's", async () => {
    await person("cookie@example.com", "it");
    const c = await page("ja-JP");
    // The cookie holds an older choice; the page now open (e.g. from a mailed link) shows another language.
    c.cookies.set("lang", "fr");
    await c.post("/api/account/recover", { email: "cookie@example.com" });
    expect((await newest("cookie@example.com", "password_reset")).language).toBe("jp");
    await c.post("/api/account/recover", { email: "cookie@example.com" }, { "accept-language": "xx" });
    expect((await newest("cookie@example.com", "password_reset")).language).toBe("fr");
    const bare = await page();
    await bare.post("/api/account/recover", { email: "cookie@example.com" });
    expect((await newest("cookie@example.com", "password_reset")).language).toBe("it");
  });

  it("resent activation, password changed, deletion and farewell follow the page each was caused on", async () => {
    await person("pending@example.com", "en", "pending");
    await (await page("ko-KR")).post("/api/account/resend_activation", { email: "pending@example.com" });
    const activation = await newest("pending@example.com", "activation");
    expect(activation.language).toBe("kr");
    expect(activation.link.searchParams.get("lang")).toBe("kr");

    await person("journey@example.com", "en");
    await (await page("it")).post("/api/account/recover", { email: "journey@example.com" });
    const code = (await newest("journey@example.com", "password_reset")).link.searchParams.get("code");
    const resetOn = await page("pt-BR");
    const newPassword = "Granite-Kettle-58-blue";
    expect((await resetOn.post("/api/account/reset_password", { code, password: newPassword })).status).toBe(200);
    expect((await newest("journey@example.com", "password_changed")).language).toBe("pt");

    const signedIn = await page("es");
    expect((await signedIn.login("journey@example.com", newPassword)).status).toBe(200);
    expect((await signedIn.post("/api/account/delete/request", { password: newPassword })).status).toBe(200);
    const deletion = await newest("journey@example.com", "deletion_request");
    expect(deletion.language).toBe("es");
    const deletionCode = deletion.link.searchParams.get("code");
    expect((await (await page("zh-CN")).post("/api/account/delete", { deletionCode })).status).toBe(200);
    expect((await newest("journey@example.com", "account_deleted")).language).toBe("cn");
  });
});

/**
 * The sentence after the greeting: English, Spanish (after its colon), Portuguese and French start it with a
 * capital; German (DIN 5008) and Italian go on in lower case after the greeting's comma; Chinese, Korean and
 * Japanese have no case (docs/decisions.md "Mail follows the page's language").
 */
const GOES_ON_IN_LOWER_CASE: ReadonlySet<Language> = new Set(["de", "it"]);
const GERMAN_POLITE_FORM = /^(Sie|Ihr|Ihre|Ihrem|Ihren|Ihrer|Ihnen)\b/u;

describe("the first sentence after the greeting", () => {
  it.each(LANGUAGE_CODES)("in %s is cased as the language writes a letter", (language) => {
    for (const kind of MAIL_KINDS) {
      const { text } = renderMail({
        kind,
        language,
        site: { brand: "default", origin: "https://login.example.com" },
        link: "https://login.example.com/x?lang=en",
        recipient: { firstName: "Ann", lastName: "Lee", addressVerified: true },
      });
      const [, afterGreeting = ""] = text.split("\n").filter((line) => line.trim() !== "");
      const first = afterGreeting.charAt(0);
      if (first.toLowerCase() === first.toUpperCase()) continue; // no case: CJK, or a brand's name first
      if (language === "de" && GERMAN_POLITE_FORM.test(afterGreeting)) continue; // "Sie" is capitalised anywhere
      const expected = GOES_ON_IN_LOWER_CASE.has(language) ? first.toLowerCase() : first.toUpperCase();
      expect(first, `${language} ${kind}: ${afterGreeting}`).toBe(expected);
    }
  });
});
