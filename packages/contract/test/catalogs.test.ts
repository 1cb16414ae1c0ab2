import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  ERROR_CODES,
  ERROR_PAGE_CODES,
  englishCatalog,
  LANGUAGE_CODES,
  type Language,
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
/** Words a language took from English: Italian says "password" (and labels every password field so); many say "OK". */
const BORROWED: Partial<Record<Language, ReadonlySet<string>>> = {
  it: new Set([
    "login.password",
    "register.password",
    "setup.password",
    "profile.deletePassword",
    "profile.passwordHeading",
    "socialRegisterComplete.ok",
  ]),
  // Spec §2's OK button: these languages say "OK" too.
  pt: new Set(["socialRegisterComplete.ok"]),
  // Issue #26: German says "Passkeys" too (Apple's, Google's and Microsoft's German pages do).
  de: new Set(["socialRegisterComplete.ok", "security.passkeys.heading", "securityPage.activity.factors.passkey"]),
  fr: new Set(["socialRegisterComplete.ok"]),
  jp: new Set(["socialRegisterComplete.ok"]),
};

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
      if (!SAME_EVERYWHERE.has(key) && !BORROWED[language]?.has(key) && hasWords(value))
        expect(value, `${language} ${key} is still English`).not.toBe(english[key]);
    }
  });

  it("keeps every placeholder", () => {
    for (const [key, value] of Object.entries(flat))
      expect(placeholders(value), key).toEqual(placeholders(english[key] ?? ""));
  });
});

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const ASCII_ALNUM = /[A-Za-z0-9]/u;

/**
 * ASCII punctuation set in Chinese or Japanese text, where the full-width marks belong (：，！？（）…). Placeholders
 * and URLs are left out, and so are strings without CJK and marks between two Latin letters or digits (Wi-Fi, 3.5).
 */
export function asciiPunctuationInCjk(text: string): string[] {
  const bare = text.replace(/\{\{\w+\}\}/gu, "X").replace(/https?:\/\/\S+/gu, "X");
  if (!CJK.test(bare)) return [];
  return [...bare.matchAll(/\.\.\.|[:,!?();]/gu)]
    .filter((m) => {
      const before = bare[(m.index ?? 0) - 1] ?? "";
      const after = bare[(m.index ?? 0) + m[0].length] ?? "";
      return !(ASCII_ALNUM.test(before) && ASCII_ALNUM.test(after));
    })
    .map((m) => m[0]);
}

/**
 * Punctuation by the language's own convention. Chinese and Japanese write full-width marks. Korean writes the
 * ASCII ones (its modern orthography uses Western punctuation), so it is not checked here. French puts a
 * no-break space before ? ! ; : and inside « », so the mark never starts a line on its own.
 */
describe("punctuation (issue #8: a native-language review)", () => {
  it("finds ASCII marks in CJK text and leaves Latin, placeholders and URLs alone", () => {
    expect(asciiPunctuationInCjk("読み込み中...")).toEqual(["..."]);
    expect(asciiPunctuationInCjk("参照番号: {{id}}")).toEqual([":"]);
    expect(asciiPunctuationInCjk("{{name}} ({{email}}) としてログイン")).toEqual(["(", ")"]);
    expect(asciiPunctuationInCjk("您好, 欢迎!")).toEqual([",", "!"]);
    expect(asciiPunctuationInCjk("Loading...")).toEqual([]);
    expect(asciiPunctuationInCjk("Wi-Fi に再接続、https://example.com/a?b=1 を開く")).toEqual([]);
    expect(asciiPunctuationInCjk("{{title}} | {{brand}}")).toEqual([]);
  });

  it.each(["cn", "jp"] as const)("%s uses full-width punctuation between CJK text", async (language) => {
    const flat = flatten(await loadCatalog(language));
    const offenders = Object.entries(flat).filter(([, value]) => asciiPunctuationInCjk(value).length > 0);
    expect(offenders.map(([key, value]) => `${key}: ${value}`)).toEqual([]);
  });

  it("fr keeps ? ! ; : and « » with a no-break space, never an ordinary one", async () => {
    const flat = flatten(await loadCatalog("fr"));
    const offenders = Object.entries(flat).filter(([, value]) => / [?!;:»]|« /u.test(value));
    expect(offenders.map(([key, value]) => `${key}: ${value}`)).toEqual([]);
  });
});

/** Words the review found wrong, each a pattern of the whole class, not only of the key it was seen in. */
const WRONG_WORDS: Record<Language, readonly [RegExp, string][]> = {
  en: [],
  es: [
    [
      /\b(vosotros|vuestr\w*|habéis|os\s|ordenador|introduc\w*|caducad\w*)\b/iu,
      "Spain's forms: write neutral Latin-American Spanish",
    ],
    [/\b(has|hemos|han?)\s+\p{L}+(ado|ido)\b/iu, "Spain's present perfect: Latin America says 'iniciaste', 'enviamos'"],
  ],
  pt: [[/\bfa(zer|ça|z|ço|zendo)\s+(o\s+|seu\s+)?login\b|\bfez\s+login\b/iu, "one verb for signing in: 'Entrar'"]],
  de: [[/Wiederherstell/u, "a link is sent to reset the password: 'Link senden', 'zurücksetzen'"]],
  it: [],
  fr: [[/Récupérer/u, "a link is sent to reset the password: 'Envoyer le lien', 'Réinitialiser'"]],
  cn: [],
  kr: [[/복구/u, "a link is sent to reset the password: '재설정'"]],
  jp: [
    [/復元/u, "a link is sent to reset the password: '再設定'"],
    [/企業(アカウント|の)/u, "one word for corporate: '会社'"],
  ],
};

/** Each language's word for a system's "user": an account is disabled, not a user. */
const USER_WORD: Partial<Record<Language, RegExp>> = {
  es: /usuario/iu,
  pt: /usuário/iu,
  it: /utente/iu,
  fr: /utilisateur/iu,
  de: /Benutzer\b/u,
  cn: /用户/u,
  jp: /ユーザー/u,
};
const DISABLED_KEYS = ["errors.user_disabled", "errorPage.user_disabled.body", "errorPage.social_user_disabled.body"];

describe.each(LANGUAGE_CODES.filter((l) => l !== "en"))(
  "wording of %s (issue #8: a native-language review)",
  (language) => {
    it("uses the words the review chose, everywhere", async () => {
      const flat = flatten(await loadCatalog(language));
      const offenders = Object.entries(flat).flatMap(([key, value]) =>
        WRONG_WORDS[language].filter(([pattern]) => pattern.test(value)).map(([, why]) => `${key}: ${value} (${why})`),
      );
      expect(offenders).toEqual([]);
    });

    it("says an account is disabled, not 'your user'", async () => {
      const catalog = await loadCatalog(language);
      const word = USER_WORD[language];
      if (!word) return;
      for (const key of DISABLED_KEYS) expect(lookup(catalog, key), key).not.toMatch(word);
    });

    it("labels the same password field one way", async () => {
      const catalog = await loadCatalog(language);
      const labels = ["login.password", "register.password", "setup.password", "profile.deletePassword"].map((key) =>
        lookup(catalog, key),
      );
      expect(new Set(labels).size, labels.join(" / ")).toBe(1);
    });
  },
);

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
      /["'`]((?:validation|errors|passwordRules|login|app|titles|footer|notFound|crash|apiError|network|errorPage|field|loginSuccess|logout|desktopApp)\.[A-Za-z_.]+[A-Za-z_])["'`]/gu,
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
    [c.footer.support, "Help Center"],
  ])("%s", (actual, expected) => {
    expect(actual).toBe(expected);
  });

  it("tells a pending account it is not active", () => {
    expect(c.errors.user_not_active).toContain("not active");
  });
});
