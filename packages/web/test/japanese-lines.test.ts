import { describe, expect, it } from "vitest";
import { japaneseBreaks } from "../src/ui/japanese-lines.tsx";

/** Issue #25: a Japanese alert breaks often enough to fill its box, never inside a word, never against kinsoku. */
describe("where a Japanese alert's line may break", () => {
  it("keeps runs of katakana and of kanji whole, and breaks beside kana", () => {
    expect(japaneseBreaks("アカウントを削除してください。")).toEqual([
      "アカウント",
      "を",
      "削除",
      "し",
      "て",
      "く",
      "だ",
      "さ",
      "い。",
    ]);
  });

  it("never starts a line with a closing mark, a small kana or ー, nor ends one with an opening mark", () => {
    const parts = japaneseBreaks("「ログイン」ページで、ちょっと待ってください。");
    for (const part of parts.slice(1)) expect(part).not.toMatch(/^[、。」ゃゅょっー]/u);
    for (const part of parts.slice(0, -1)) expect(part).not.toMatch(/[「]$/u);
    expect(parts.join("")).toBe("「ログイン」ページで、ちょっと待ってください。");
  });

  it("leaves Latin words, numbers and spaces to the browser", () => {
    expect(japaneseBreaks("Google でログイン")).toEqual(["Google でログイン".slice(0, 8), "ログイン"]);
    expect(japaneseBreaks("有効期限は 1 時間です")).toEqual(["有効期限", "は 1 時間", "で", "す"]);
  });
});
