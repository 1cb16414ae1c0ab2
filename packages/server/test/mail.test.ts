import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BRAND_IDS, BRANDS, LANGUAGE_CODES, type Language, loadCatalog } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { runAdmin } from "../src/admin/cli.ts";
import type { Recipient } from "../src/mail/greeting.ts";
import type { MailKind } from "../src/mail/kinds.ts";
import { MAIL_LOGOS } from "../src/mail/logos.ts";
import { retryDelay } from "../src/mail/outbox.ts";
import { type MailInput, renderMail } from "../src/mail/render.ts";
import { startServer, tempDir } from "./harness.ts";

const WEB_PUBLIC = join(import.meta.dirname, "../../web/public");
const site = { brand: "default", origin: "https://login.example.com" } as const;
const ann: Recipient = { firstName: "Ann", lastName: "Lee", addressVerified: true };
const base: MailInput = {
  kind: "activation",
  language: "en",
  site,
  link: "https://login.example.com/account/activate?code=abc&lang=en",
  recipient: ann,
};
const render = (input: Partial<MailInput>) => renderMail({ ...base, ...input });
/** The greeting: the plain-text part's first line. */
const greeting = (input: Partial<MailInput>) => render(input).text.split("\n")[0];

describe("mail rendering", () => {
  it.each(LANGUAGE_CODES)("speaks %s, in HTML and plain text, with the link", async (language) => {
    const catalog = await loadCatalog(language);
    const mail = render({ language });
    expect(mail.subject).toBe(catalog.mail.activation.subject.replace("{{brand}}", "Gatehouse"));
    expect(mail.text).toContain(catalog.mail.activation.button);
    expect(mail.text).toContain(base.link);
    expect(mail.html).toContain(`href="${base.link.replace("&", "&amp;")}"`);
    expect(mail.html).toMatch(/^<!doctype html>/u);
  });

  it.each(BRAND_IDS)("wears the %s brand: name, colours, PNG logo on the brand's site, legal links", (id) => {
    const brand = BRANDS[id];
    const logo = MAIL_LOGOS[id];
    const mail = render({ site: { brand: id, origin: "https://login.brand.example" } });
    expect(mail.subject).toBe(`Activate your ${brand.name} account`);
    expect(mail.html).toContain(brand.colors.primary);
    // Gmail and Outlook show no SVG; Outlook needs the size on the element.
    expect(mail.html).toContain(
      `<img src="https://login.brand.example${logo.path}" alt="${brand.name}" width="${logo.width}" height="${logo.height}"`,
    );
    expect(mail.html).not.toContain(".svg");
    expect(mail.html).toContain(brand.links.privacy);
    expect(mail.text).toContain(brand.links.terms);
  });

  it.each(BRAND_IDS)("has a PNG logo for %s at twice the size of its SVG", (id) => {
    const logo = MAIL_LOGOS[id];
    const png = readFileSync(join(WEB_PUBLIC, logo.path));
    // PNG signature, then the IHDR chunk: width and height as big-endian 32-bit integers at bytes 16 and 20.
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([logo.width * 2, logo.height * 2]);
    const svg = readFileSync(join(WEB_PUBLIC, BRANDS[id].logo), "utf8");
    expect(svg).toContain(`viewBox="0 0 ${logo.width} ${logo.height}"`);
  });

  it("tells an invited person why the mail came without claiming they signed up", () => {
    const mail = render({ kind: "password_setup", site: { ...site, brand: "assets" } });
    expect(mail.text).toContain("You receive this email because it concerns your Cosmos account.");
    expect(mail.text).not.toMatch(/sign(ed)? up/iu);
  });

  it("escapes a name in the HTML, and falls back to English for an unknown language", () => {
    const mail = render({ kind: "password_reset", language: "xx", recipient: { ...ann, firstName: "D'Arcy" } });
    expect(mail.subject).toBe("Reset your Gatehouse password");
    expect(mail.text.split("\n")[0]).toBe("Hello D'Arcy,");
    expect(mail.html).toContain("Hello D&#39;Arcy,");
  });

  it("separates labels from values as each language writes it (French space, full-width CJK colon)", () => {
    expect(render({ language: "en" }).text).toContain(`Privacy policy: ${BRANDS.default.links.privacy}`);
    expect(render({ language: "fr" }).text).toContain(
      `Politique de confidentialité\u00a0: ${BRANDS.default.links.privacy}`,
    );
    const japanese = render({ language: "jp" }).text;
    expect(japanese).toContain(`：${BRANDS.default.links.privacy}`);
    expect(japanese).toContain(`：${base.link}`);
    expect(japanese).not.toMatch(/\P{ASCII}: /u);
    expect(render({ language: "cn" }).text).toContain(`：${base.link}`);
  });

  it("backs off exponentially up to an hour", () => {
    expect([1, 2, 3].map(retryDelay)).toEqual([10_000, 20_000, 40_000]);
    expect(retryDelay(30)).toBe(3_600_000);
  });
});

describe("greetings", () => {
  const verifiedKinds: MailKind[] = [
    "password_reset",
    "password_changed",
    "password_add",
    "deletion_request",
    "account_deleted",
  ];

  it.each([
    ["en", "Hello Ann,"],
    ["es", "Hola, Ann:"],
    ["pt", "Olá, Ann,"],
    ["it", "Ciao Ann,"],
    ["fr", "Bonjour Ann,"],
    ["de", "Guten Tag Ann Lee,"],
    ["cn", "Lee Ann，您好："],
    ["kr", "Lee Ann님, 안녕하세요."],
    ["jp", "Lee Ann 様"],
  ] as const)("greets a verified address in %s by name as the language does: %s", (language, expected) => {
    for (const kind of verifiedKinds) expect(greeting({ kind, language })).toBe(expected);
  });

  it("writes CJK names family name first, without a space", () => {
    const taro: Recipient = { firstName: "太郎", lastName: "山田", addressVerified: true };
    expect(greeting({ kind: "password_reset", language: "jp", recipient: taro })).toBe("山田太郎 様");
    const gildong: Recipient = { firstName: "길동", lastName: "홍", addressVerified: true };
    expect(greeting({ kind: "password_reset", language: "kr", recipient: gildong })).toBe("홍길동님, 안녕하세요.");
  });

  it.each([
    ["jp", "お客様"],
    ["cn", "您好："],
    ["kr", "안녕하세요."],
    ["de", "Guten Tag,"],
  ] as const)(
    "in %s greets neutrally when the full name is not known (no 様 after a given name): %s",
    (language, neutral) => {
      const givenOnly: Recipient = { firstName: "Ann", lastName: "", addressVerified: true };
      expect(greeting({ kind: "password_reset", language, recipient: givenOnly })).toBe(neutral);
    },
  );

  it.each(LANGUAGE_CODES)("in %s never greets by an e-mail address", (language: Language) => {
    const invited: Recipient = { firstName: "", lastName: "", addressVerified: true };
    const mail = render({ kind: "password_changed", language, recipient: invited });
    expect(mail.text).not.toContain("@");
    expect(mail.html).not.toMatch(/[\w.]+@[\w.]+/u);
  });
});

/** Names a stranger could type at sign-up to make an activation mail carry a link or an instruction. */
const HOSTILE_NAMES = [
  "Visit https://evil.example/reset now",
  "Visit evil dot example and type your password",
  "www.evil.example",
  "evil.example",
  "evil@evil.example",
  "http://192.0.2.1",
  "evil\u2024example", // ONE DOT LEADER, a look-alike dot
  "evil\u3002example", // ideographic full stop
  "ｅｖｉｌ．ｅｘａｍｐｌｅ", // full-width letters and dot
  "Ann\nCall +1 555 0100 to keep your account",
  "Ann\u202eelpmaxe.live", // right-to-left override
  "<a href=https://evil.example>Ann</a>",
];

const nameless = (addressVerified: boolean): Recipient => ({ firstName: "", lastName: "", addressVerified });

describe("mail to an address nobody has proven yet", () => {
  const unverified: MailKind[] = ["activation", "password_setup"];

  it.each(HOSTILE_NAMES)("is the same as without a name, whatever was typed: %j", (name) => {
    for (const kind of unverified)
      for (const language of LANGUAGE_CODES)
        for (const addressVerified of [false, true]) {
          const typed = render({ kind, language, recipient: { firstName: name, lastName: name, addressVerified } });
          expect(typed).toEqual(render({ kind, language, recipient: nameless(addressVerified) }));
        }
  });

  it("greets neutrally even with a harmless name: whoever typed it may not own the address", () => {
    for (const kind of ["password_reset", ...unverified] as MailKind[])
      expect(greeting({ kind, recipient: { ...ann, addressVerified: false } })).toBe("Hello,");
  });
});

describe("mail to a verified address", () => {
  it.each(HOSTILE_NAMES.filter((n) => !n.startsWith("Visit evil dot")))(
    "does not echo a name a mail program could turn into a link or that hides its direction: %j",
    (name) => {
      for (const language of LANGUAGE_CODES) {
        const typed = render({
          kind: "password_reset",
          language,
          recipient: { ...ann, firstName: name, lastName: name },
        });
        expect(typed).toEqual(render({ kind: "password_reset", language, recipient: nameless(true) }));
      }
    },
  );

  it("keeps ordinary names with initials, apostrophes, hyphens and middle dots", () => {
    for (const firstName of ["J. R.", "Anne-Marie", "O'Neil", "Núria", "Gal·la", "Zoë"])
      expect(greeting({ kind: "password_reset", recipient: { ...ann, firstName } })).toBe(`Hello ${firstName},`);
  });
});

describe("dev mailbox", () => {
  it("lists mail at /dev/mail outside production, and not in production", async () => {
    const dev = await startServer();
    const production = await startServer({ env: { NODE_ENV: "production", SMTP_URL: "smtp://127.0.0.1:1" } });
    try {
      const page = await fetch(`${dev.url}/dev/mail`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Dev mailbox");
      expect((await fetch(`${production.url}/dev/mail`)).status).toBe(404);
    } finally {
      await dev.close();
      await production.close();
    }
    const env = {
      DATABASE_URL: `sqlite:${tempDir()}/p.db`,
      SESSION_SECRET: "s".repeat(32),
      NODE_ENV: "production",
      SMTP_URL: "smtp://127.0.0.1:1",
    };
    expect(await runAdmin(["mail:list"], env)).toMatchObject({ code: 1, out: expect.stringContaining("production") });
  });

  it("lets a mail's page show the logo from its brand's own origin, and nothing more (issue #25)", async () => {
    const dev = await startServer();
    try {
      // A cloud mail, as the outbox keeps it: its logo is on the cloud brand's origin (cloud.localhost).
      await dev.app.db
        .insertInto("outbox")
        .values({
          id: "logo-mail",
          user_id: null,
          recipient: "logo@example.com",
          kind: "password_changed",
          subject: "s",
          text_body: "t",
          html_body: renderMail({ ...base, site: { brand: "cloud", origin: dev.config.brandOrigins.cloud } }).html,
          status: "pending",
          attempts: 0,
          next_attempt_at: Date.now(),
          claimed_until: null,
          last_error: null,
          created_at: Date.now(),
          sent_at: null,
        })
        .execute();
      const page = await fetch(`${dev.url}/dev/mail/logo-mail`);
      const logo = /<img[^>]+src="([^"]+)"/u.exec(await page.text())?.[1] ?? "";
      expect(new URL(logo).origin).toBe("http://cloud.localhost:8080");
      const csp = page.headers.get("content-security-policy") ?? "";
      const directive = (name: string) =>
        csp
          .split(";")
          .find((d) => d.trim().startsWith(`${name} `))
          ?.trim();
      expect(directive("img-src")?.split(" ")).toContain("http://cloud.localhost:8080");
      expect(directive("img-src")?.split(" ")).not.toContain("*");
      expect(directive("script-src")).toBe("script-src 'self'");
      expect(directive("frame-ancestors")).toBe("frame-ancestors 'none'");
      // The mailbox's list shows no image: it keeps the pages' policy.
      const list = (await fetch(`${dev.url}/dev/mail`)).headers.get("content-security-policy") ?? "";
      expect(list).not.toContain("cloud.localhost");
    } finally {
      await dev.close();
    }
  });
});
