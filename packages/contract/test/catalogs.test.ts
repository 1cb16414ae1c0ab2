import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  ERROR_CODES,
  ERROR_PAGE_CODES,
  englishCatalog,
  LANGUAGE_CODES,
  loadCatalog,
  lookup,
} from "../src/index.ts";

type Flat = Record<string, string>;
function flatten(node: unknown, prefix = "", out: Flat = {}): Flat {
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (typeof value === "string") out[prefix + key] = value;
    else flatten(value, `${prefix}${key}.`, out);
  }
  return out;
}
const placeholders = (text: string) => (text.match(/\{\{\w+\}\}/gu) ?? []).sort();

/** Values that are the same in every language by design. */
const SAME_EVERYWHERE = new Set(["app.pageTitle"]);
/** Punctuation patterns such as `mail.labelled` ("{{label}}: {{value}}") have no words to translate. */
const hasWords = (value: string) => /\p{L}/u.test(value.replace(/\{\{\w+\}\}/gu, ""));

const english = flatten(englishCatalog);

describe.each(LANGUAGE_CODES.filter((l) => l !== "en"))("catalog %s", (language) => {
  let flat: Flat;
  it("loads", async () => {
    flat = flatten(await loadCatalog(language));
  });

  it("has exactly the English keys", () => {
    expect(Object.keys(flat).sort()).toEqual(Object.keys(english).sort());
  });

  it("translates every value (none empty, none left in English)", () => {
    for (const [key, value] of Object.entries(flat)) {
      expect(value.trim(), key).not.toBe("");
      if (!SAME_EVERYWHERE.has(key) && hasWords(value))
        expect(value, `${language} ${key} is still English`).not.toBe(english[key]);
    }
  });

  it("keeps every placeholder", () => {
    for (const [key, value] of Object.entries(flat))
      expect(placeholders(value), key).toEqual(placeholders(english[key] ?? ""));
  });
});

/** Every i18n key written as a string literal in the contract and the web app must exist in English. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" || name === "dist" ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/u.test(name) ? [path] : [];
  });
}

describe("keys used by code", () => {
  const root = join(import.meta.dirname, "..", "..");
  const files = [
    ...sourceFiles(join(root, "contract", "src")),
    ...sourceFiles(join(root, "web", "src")),
    ...sourceFiles(join(root, "server", "src")),
  ];
  const used = new Set<string>();
  for (const file of files) {
    for (const match of readFileSync(file, "utf8").matchAll(
      /["'`]((?:validation|errors|passwordRules|login|app|titles|footer|notFound|crash|apiError|network|errorPage|field|loginSuccess|logout)\.[A-Za-z_.]+[A-Za-z_])["'`]/gu,
    )) {
      used.add(match[1] as string);
    }
  }

  it("finds the keys it looks for", () => {
    expect(used.size).toBeGreaterThan(40);
  });

  it.each([...used].sort())("%s exists", (key) => {
    expect(lookup(englishCatalog, key), key).toBeTypeOf("string");
  });

  it("names every error code and error-page code", () => {
    for (const code of ERROR_CODES) expect(lookup(englishCatalog, `errors.${code}`), code).toBeTypeOf("string");
    for (const code of ERROR_PAGE_CODES) {
      expect(lookup(englishCatalog, `errorPage.${code}.title`), code).toBeTypeOf("string");
      expect(lookup(englishCatalog, `errorPage.${code}.body`), code).toBeTypeOf("string");
    }
  });
});

describe("spec wording (English is the UI's wording)", () => {
  const c: Catalog = englishCatalog;
  it.each([
    [c.errors.invalid_authentication, "Incorrect email or password."],
    [c.errors.user_disabled, "Your user has been disabled in our system."],
    [c.notFound.heading, "404 PAGE NOT FOUND"],
    [c.crash.reload, "Reload page"],
    [c.apiError.heading, "Oops... what a mess."],
    [c.app.loading, "Loading..."],
    [c.login.heading.trial, "Sign in to get your trial"],
    [c.login.heading.purchase, "Sign in to complete your purchase"],
    [c.login.heading.demo, "Sign in to activate the Corona trial on your account"],
    [c.login.password, "Password"],
    [c.login.submit, "Sign in"],
    [c.validation.loginEmail.required, "Please enter your username or email address."],
    [c.validation.password.loginMin, "Your password must be at least 6 characters long."],
    [
      c.network.offline,
      "No Internet connection. Please check the network cables, modem and router or reconnect to Wi-Fi.",
    ],
    [c.network.timeout, "We are having technical difficulties. The operation timed out. Please try later."],
    [c.login.promoTitle, "Start with 20 free credits"],
  ])("%s", (actual, expected) => {
    expect(actual).toBe(expected);
  });

  it("tells a pending account it is not active", () => {
    expect(c.errors.user_not_active).toContain("not active");
  });
});
