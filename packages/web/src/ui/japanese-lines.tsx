import { Fragment, type ReactNode } from "react";

const KATAKANA = /[\p{Script=Katakana}ー]/u;
const HAN = /\p{Script=Han}/u;
const JAPANESE = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}ー]/u;
/** Kinsoku: what may not start a line (closing marks, small kana, the long-vowel mark) or end one (opening marks). */
const NO_LINE_START = /[、。，．・：；？！」』）］｝〕〉》】ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ々ー]/u;
const NO_LINE_END = /[「『（［｛〔〈《【]/u;

/**
 * Whether a Japanese line may break between `before` and `after`: beside Japanese text, never inside a run of
 * katakana (アカウント) or of kanji (有効期限), which read as one word, and never against kinsoku.
 */
function mayBreak(before: string, after: string): boolean {
  if (!JAPANESE.test(before) && !JAPANESE.test(after)) return false;
  if (KATAKANA.test(before) && KATAKANA.test(after)) return false;
  if (HAN.test(before) && HAN.test(after)) return false;
  return !NO_LINE_START.test(after) && !NO_LINE_END.test(before) && !/\s/u.test(before + after);
}

/** The text cut where a line may break. */
export function japaneseBreaks(text: string): string[] {
  const chars = Array.from(text);
  const parts: string[] = [];
  let part = "";
  chars.forEach((char, i) => {
    if (i > 0 && mayBreak(chars[i - 1] as string, char)) {
      parts.push(part);
      part = "";
    }
    part += char;
  });
  return part ? [...parts, part] : parts;
}

/**
 * A Japanese sentence in a narrow box (issue #25): the page breaks between phrases (global.css, auto-phrase), which
 * leaves an alert's lines half empty; here every place a line may break is marked (<wbr>) and nothing else breaks,
 * so the lines fill the box and no word is cut.
 */
export function JapaneseLines({ text, className }: { text: string; className: string }): ReactNode {
  return (
    <span className={className}>
      {japaneseBreaks(text).map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text, in order.
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
