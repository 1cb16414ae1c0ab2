import { LANGUAGE_CODES, LANGUAGES, type Language } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COUNTRY_CODES, countryList, countryName, JAPANESE_READINGS } from "../src/countries.ts";
import { startServer, type TestServer } from "./harness.ts";

/** The everyday names of the countries a native-language review found in UN form ("Korea, Republic of"). */
const EVERYDAY: Record<Language, Record<string, string>> = {
  en: { TW: "Taiwan", KR: "South Korea", KP: "North Korea", CN: "China", IR: "Iran", RU: "Russia", SY: "Syria" },
  es: { TW: "Taiwán", KR: "Corea del Sur", CN: "China", IR: "Irán", RU: "Rusia", SA: "Arabia Saudita" },
  pt: { TW: "Taiwan", KR: "Coreia do Sul", CN: "China", IR: "Irã", RU: "Rússia", SY: "Síria" },
  de: { TW: "Taiwan", KR: "Südkorea", CN: "China", IR: "Iran", RU: "Russland", SY: "Syrien", BN: "Brunei" },
  it: { TW: "Taiwan", KR: "Corea del Sud", CN: "Cina", IR: "Iran", RU: "Russia", SY: "Siria" },
  fr: { TW: "Taïwan", KR: "Corée du Sud", CN: "Chine", IR: "Iran", RU: "Russie", VA: "Vatican" },
  cn: { TW: "台湾", KR: "韩国", KP: "朝鲜", CN: "中国", IR: "伊朗", RU: "俄罗斯", HK: "香港", MO: "澳门" },
  kr: { TW: "대만", KR: "대한민국", KP: "북한", CN: "중국", IR: "이란", RU: "러시아", HK: "홍콩" },
  jp: { TW: "台湾", KR: "韓国", KP: "北朝鮮", CN: "中国", IR: "イラン", RU: "ロシア", HK: "香港", CG: "コンゴ共和国" },
};

/** What official or UN-style names look like in each script: an inverted "X, Republic of", a formal prefix. */
const UN_FORM: Record<Language, RegExp> = {
  en: /, |\bRepublic of\b|\bFederation\b|\bProvince of\b|\bState of\b|\bSAR\b|\bDarussalam\b|People's/u,
  es: /, |\bProvincia\b|\bFederación\b|\bRAE\b|Estado Plurinacional|Islámica/u,
  pt: /, |\bProvíncia\b|\bFederação\b|\bRAE\b|Islâmica/u,
  de: /, |\bProvinz\b|\bFöderation\b|Sonderverwaltungsregion|Darussalam|Islamische/u,
  it: /, |\bProvincia\b|\bFederazione\b|\bRAS\b|Islamica/u,
  fr: /, |\bProvince\b|\bFédération\b|R\.A\.S\.|islamique|État de la/u,
  cn: /省|特别行政区|联邦|人民共和国|领土/u,
  kr: /특별행정구|연방|중화민국|인민공화국|지구$/u,
  jp: /特別行政区|ロシア連邦|人民共和国|大韓民国|自治区|\(/u,
};

const japanese = new Intl.Collator("ja");

describe("country names (issue #8: everyday names, in every language)", () => {
  it.each(LANGUAGE_CODES)("%s names every ISO 3166-1 country the way people say it", (language) => {
    const list = countryList(language);
    expect(list.map((c) => c.code).sort()).toEqual([...COUNTRY_CODES].sort());
    for (const [code, name] of Object.entries(EVERYDAY[language])) expect(countryName(code, language), code).toBe(name);
    for (const { code, name } of list) {
      expect(name, code).not.toBe(code);
      expect(name, `${language} ${code}`).not.toMatch(UN_FORM[language]);
    }
    expect(new Set(list.map((c) => c.name)).size, "every name once").toBe(list.length);
  });

  it("shows Taiwan, Hong Kong and Macau as places, not as a province or a region of another country", () => {
    for (const language of LANGUAGE_CODES)
      for (const code of ["TW", "HK", "MO"])
        expect(countryName(code, language), `${language} ${code}`).not.toMatch(/China|Chine|Cina|中国|中華|중국/u);
  });
});

describe("country order (issue #8: sorted the way people look for them)", () => {
  it.each(LANGUAGE_CODES.filter((l) => l !== "jp"))(
    "%s follows the language's collation (pinyin for Chinese, Hangul for Korean)",
    (language) => {
      const tag = language === "es" ? "es-419" : LANGUAGES[language].tag;
      const names = countryList(language).map((c) => c.name);
      expect(names).toEqual([...names].sort(new Intl.Collator(tag).compare));
    },
  );

  it("sorts Chinese by pinyin: 阿根廷 (a) first, 中国 (zhong) near the end, 德国 (de) before 法国 (fa)", () => {
    const names = countryList("cn").map((c) => c.name);
    expect(names.indexOf("阿根廷")).toBeLessThan(names.indexOf("巴西"));
    expect(names.indexOf("德国")).toBeLessThan(names.indexOf("法国"));
    expect(names.indexOf("中国")).toBeGreaterThan(names.indexOf("英国"));
  });

  it("sorts Korean by Hangul: 가나 first, 대한민국 between 대만 and 덴마크", () => {
    const names = countryList("kr").map((c) => c.name);
    expect(names[0]).toBe("가나");
    expect(names.indexOf("대한민국")).toBe(names.indexOf("대만") + 1);
    expect(names.indexOf("덴마크")).toBe(names.indexOf("대한민국") + 1);
  });

  it("files every Japanese name that begins with kanji by its reading", () => {
    const list = countryList("jp");
    for (const { name } of list)
      if (/^\p{Script=Han}/u.test(name))
        expect(JAPANESE_READINGS[name], `reading of ${name}`).toMatch(
          /^[\p{Script=Hiragana}\p{Script=Katakana}ー・]+$/u,
        );
    const keys = list.map(({ name }) => JAPANESE_READINGS[name] ?? name);
    expect(keys).toEqual([...keys].sort(japanese.compare));
  });

  it("puts 日本 among the に, 中国 among the ち, 韓国 among the か, not after every kana name", () => {
    const names = countryList("jp").map((c) => c.name);
    const between = (name: string, before: string, after: string) => {
      expect(names.indexOf(name), `${before} < ${name}`).toBeGreaterThan(names.indexOf(before));
      expect(names.indexOf(name), `${name} < ${after}`).toBeLessThan(names.indexOf(after));
    };
    between("日本", "西サハラ", "ニューカレドニア");
    between("中国", "チャド", "チュニジア");
    between("韓国", "カメルーン", "ガンビア");
    between("台湾", "タイ", "タジキスタン");
    between("北朝鮮", "ガンビア", "ギニア");
    between("香港", "ボリビア", "ホンジュラス");
    expect(names.at(-1)).not.toMatch(/^\p{Script=Han}/u);
  });
});

describe("GET /api/countries language", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const ask = async (headers: Record<string, string>) => {
    const answer = await fetch(`${server.url}/api/countries`, { headers });
    const list = (await answer.json()) as { code: string; name: string }[];
    return { language: answer.headers.get("content-language"), taiwan: list.find((c) => c.code === "TW")?.name };
  };

  it("answers region-tagged Accept-Language in its language", async () => {
    expect(await ask({ "accept-language": "pt-BR,pt;q=0.9" })).toEqual({ language: "pt", taiwan: "Taiwan" });
    expect(await ask({ "accept-language": "ja-JP" })).toEqual({ language: "ja", taiwan: "台湾" });
    expect(await ask({ "accept-language": "zh-Hans-CN" })).toEqual({ language: "zh-CN", taiwan: "台湾" });
  });

  it("does not answer Taiwan, Hong Kong or Macau in Simplified Chinese", async () => {
    expect((await ask({ "accept-language": "zh-TW,zh;q=0.9" })).language).toBe("en");
    expect((await ask({ "accept-language": "zh-Hant-HK" })).language).toBe("en");
    expect((await ask({ "cf-ipcountry": "TW" })).language).toBe("en");
    expect((await ask({ "cf-ipcountry": "MO" })).language).toBe("en");
    expect((await ask({ "accept-language": "zh-HK,zh;q=0.9,ja;q=0.8" })).language).toBe("ja");
  });

  it("lets a language cookie that is not ours fall through to Accept-Language", async () => {
    expect((await ask({ cookie: "lang=xx", "accept-language": "de-AT" })).language).toBe("de");
  });
});
