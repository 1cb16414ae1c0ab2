import { describe, expect, it } from "vitest";
import { LANGUAGE_CODES, type Language, loadCatalog } from "../src/index.ts";

/**
 * The classes of error issue #25's native-language review found inside one catalog: a word spelled two ways, a
 * register slipping, curly apostrophes among straight ones and another country's quotation marks. Each table row is
 * a pattern of the whole class, checked across the whole catalog, not only the key the review saw it in.
 */

type Flat = Record<string, string>;
function flatten(node: unknown, prefix = "", out: Flat = {}): Flat {
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (typeof value === "string") out[prefix + key] = value;
    else flatten(value, `${prefix}${key}.`, out);
  }
  return out;
}

/** A form a catalog does not write, what it writes instead, and the keys where the form is fixed elsewhere. */
interface Avoided {
  readonly avoid: RegExp;
  readonly write: string;
  readonly except?: readonly string[];
}

/** The values of a catalog that use an avoided form, named `key: value (write …)`. */
function offenders(flat: Flat, rows: readonly Avoided[]): string[] {
  return Object.entries(flat).flatMap(([key, value]) =>
    rows
      .filter((row) => !row.except?.includes(key) && row.avoid.test(value))
      .map((row) => `${key}: ${value} (write ${row.write})`),
  );
}

/** Known pairs of spellings of one word: the catalog writes the review's choice, never the other. */
const ONE_SPELLING: Record<Language, readonly Avoided[]> = {
  en: [
    // Spec §9 quotes the helper's own message "License server activation failed: ..." (American): kept as is.
    { avoid: /licens/iu, write: "licence, the UI's British spelling", except: ["studio.serverFailed"] },
    { avoid: /\bsign in (failed|page)\b|corporate sign in\b/iu, write: "sign-in as a noun ('Corporate sign-in')" },
  ],
  es: [
    { avoid: /\bEscribe\b/u, write: "Ingresa" },
    { avoid: /caduc/iu, write: "expiró, expirado" },
  ],
  pt: [
    // Bare "avaliação" also means a review or rating ("Site de avaliações", a setup option).
    { avoid: /(?<!períodos? de |Site de )avaliaç(ão|ões)/u, write: "período de avaliação for a trial" },
    { avoid: /\b(Digite|Informe)\b/u, write: "Insira" },
  ],
  de: [{ avoid: /Lizenz-/u, write: "one compound: Lizenzhelfer, Lizenzserver" }],
  it: [{ avoid: /e-mail/iu, write: "email" }],
  fr: [],
  cn: [
    { avoid: /帐户|账号/u, write: "账户" },
    { avoid: /提供方/u, write: "身份提供商" },
  ],
  kr: [
    { avoid: /당사/u, write: "저희" },
    { avoid: /로드 중/u, write: "불러오는 중" },
  ],
  jp: [
    { avoid: /既に/u, write: "すでに" },
    // Katakana words of one compound are written together (サポートチーム, ログインページ, 迷惑メールフォルダー).
    { avoid: /[\p{Script=Katakana}\u30FC] +\p{Script=Katakana}/u, write: "katakana compounds without a space" },
    { avoid: /有効に/u, write: "有効化 (as titles.licenceActivation)" },
    { avoid: /もう一度試す/u, write: "再試行 (as apiError.retry)" },
  ],
};

/** Forms outside the register a catalog keeps. */
const OFF_REGISTER: Partial<Record<Language, readonly Avoided[]>> = {
  jp: [{ avoid: /あなた/u, write: "お客様, the catalog's polite 'you'" }],
  kr: [{ avoid: /십시오/u, write: "하세요 / 주세요, the catalog's polite register" }],
};

/** Every catalog writes the straight apostrophe: a curly or other one among them is drift. */
const NOT_APOSTROPHES: readonly Avoided[] = [{ avoid: /[’‘ʼ´`]/u, write: "the straight apostrophe '" }];

/** Each language's own quotation marks (Latin-American Spanish “…”, German „…“, French « … », Japanese 「…」). */
const QUOTES: Record<Language, string> = {
  en: "“”",
  es: "“”",
  pt: "“”",
  de: "„“",
  it: "“”",
  fr: "«»",
  cn: "“”",
  kr: "“”",
  jp: "「」",
};
const quotesOtherThan = (language: Language): Avoided => ({
  avoid: new RegExp(`[${"«»“”„‟‹›「」『』".replace(new RegExp(`[${QUOTES[language]}]`, "gu"), "")}]`, "u"),
  write: `${QUOTES[language]} for quotations`,
});

describe("the checks find what the review found (issue #25)", () => {
  const found = (rows: readonly Avoided[], text: string) => offenders({ key: text }, rows).length;

  it("a second spelling of a word", () => {
    expect(found(ONE_SPELLING.jp, "このリンクは既に使用されています。")).toBe(1);
    expect(found(ONE_SPELLING.jp, "サポート チームがお手伝いします。")).toBe(1);
    expect(found(ONE_SPELLING.jp, "ログイン ページに移動しています…")).toBe(1);
    expect(found(ONE_SPELLING.jp, "ライセンスを有効にしています")).toBe(1);
    expect(found(ONE_SPELLING.jp, "Wi-Fi に再接続、Trimble アカウント、3D アーティスト")).toBe(0);
    expect(found(ONE_SPELLING.de, "Der Lizenz-Helfer war nicht erreichbar.")).toBe(1);
    expect(found(ONE_SPELLING.kr, "당사 제품")).toBe(1);
    expect(found(ONE_SPELLING.pt, "Inicie sua avaliação")).toBe(1);
    expect(found(ONE_SPELLING.pt, "Inicie seu período de avaliação")).toBe(0);
    expect(found(ONE_SPELLING.pt, "Site de avaliações")).toBe(0);
    expect(found(ONE_SPELLING.en, "Corporate sign in")).toBe(1);
    expect(found(ONE_SPELLING.en, "Sign in with corporate email")).toBe(0);
    expect(found(ONE_SPELLING.en, "Activate your license")).toBe(1);
    expect(
      offenders({ "studio.serverFailed": "License server activation failed: {{message}}" }, ONE_SPELLING.en),
    ).toEqual([]);
  });

  it("a word outside the register", () => {
    expect(found(OFF_REGISTER.jp ?? [], "あなたのアカウント")).toBe(1);
    expect(found(OFF_REGISTER.kr ?? [], "완료해 주십시오.")).toBe(1);
    expect(found(OFF_REGISTER.kr ?? [], "완료해 주세요.")).toBe(0);
  });

  it("a curly apostrophe or another country's quotation marks", () => {
    expect(found(NOT_APOSTROPHES, "Nous n’avons pas pu vous connecter")).toBe(1);
    expect(found(NOT_APOSTROPHES, "Nous n'avons pas pu vous connecter")).toBe(0);
    expect(found([quotesOtherThan("es")], "Usa «¿Olvidaste tu contraseña?»")).toBe(1);
    expect(found([quotesOtherThan("es")], "Usa “¿Olvidaste tu contraseña?”")).toBe(0);
    expect(found([quotesOtherThan("de")], "Nutzen Sie „Passwort vergessen?“")).toBe(0);
    expect(found([quotesOtherThan("fr")], "Utilisez «\u00a0Mot de passe oublié\u00a0?\u00a0»")).toBe(0);
  });
});

describe.each(LANGUAGE_CODES)("catalog %s is consistent within itself (issue #25 review)", (language) => {
  let flat: Flat;
  it("loads", async () => {
    flat = flatten(await loadCatalog(language));
  });

  it("writes each word one way", () => {
    expect(offenders(flat, ONE_SPELLING[language])).toEqual([]);
  });

  it("keeps its register", () => {
    expect(offenders(flat, OFF_REGISTER[language] ?? [])).toEqual([]);
  });

  it("writes the straight apostrophe and its own quotation marks", () => {
    expect(offenders(flat, [...NOT_APOSTROPHES, quotesOtherThan(language)])).toEqual([]);
  });
});
