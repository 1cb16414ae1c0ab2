import { BRAND_IDS, BRANDS, LANGUAGE_CODES, loadCatalog } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { runAdmin } from "../src/admin/cli.ts";
import { retryDelay } from "../src/mail/outbox.ts";
import { renderMail } from "../src/mail/render.ts";
import { startServer, tempDir } from "./harness.ts";

const base = {
  kind: "activation" as const,
  publicUrl: new URL("https://login.example.com"),
  link: "https://login.example.com/account/activate?code=abc",
  name: "Ann",
};

describe("mail rendering", () => {
  it.each(LANGUAGE_CODES)("speaks %s, in HTML and plain text, with the link", async (language) => {
    const catalog = await loadCatalog(language);
    const mail = renderMail({ ...base, language, brand: "default" });
    expect(mail.subject).toBe(catalog.mail.activation.subject.replace("{{brand}}", "Gatehouse"));
    expect(mail.text).toContain(catalog.mail.activation.button);
    expect(mail.text).toContain(base.link);
    expect(mail.html).toContain(`href="${base.link}"`);
    expect(mail.html).toMatch(/^<!doctype html>/u);
  });

  it.each(BRAND_IDS)("wears the %s brand: name, colours, logo and legal links", (id) => {
    const brand = BRANDS[id];
    const mail = renderMail({ ...base, language: "en", brand: id });
    expect(mail.subject).toBe(`Activate your ${brand.name} account`);
    expect(mail.html).toContain(brand.colors.primary);
    expect(mail.html).toContain(`src="https://login.example.com${brand.logo}"`);
    expect(mail.html).toContain(brand.links.privacy);
    expect(mail.text).toContain(brand.links.terms);
  });

  it("tells an invited person why the mail came without claiming they signed up", () => {
    const mail = renderMail({ ...base, kind: "password_setup", language: "en", brand: "assets" });
    expect(mail.text).toContain("You receive this email because it concerns your Cosmos account.");
    expect(mail.text).not.toMatch(/sign(ed)? up/iu);
  });

  it("escapes what users typed, and falls back for unknown languages and brands", () => {
    const mail = renderMail({ ...base, language: "xx", brand: "nope", name: '<img src=x onerror="alert(1)">' });
    expect(mail.html).not.toContain("<img src=x");
    expect(mail.html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(mail.subject).toBe("Activate your Gatehouse account");
  });

  it("backs off exponentially up to an hour", () => {
    expect([1, 2, 3].map(retryDelay)).toEqual([10_000, 20_000, 40_000]);
    expect(retryDelay(30)).toBe(3_600_000);
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
});
