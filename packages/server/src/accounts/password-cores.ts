import { PASSWORD_POLICY } from "@gatehouse/contract";
import { DIGIT, LETTER, PADDING_LETTERS_MAX, SYMBOL } from "./password-characters.ts";
import { isDegenerate } from "./password-patterns.ts";
import { readingsOf } from "./password-variants.ts";

/**
 * The cores of a password form: what is left once padding is stripped around it, where a breached word or a
 * degenerate run is looked for (ASVS 6.2.4).
 */

/** A list of words to look for, with every beginning of one (to give up a reading early) and its longest length. */
export interface WordList {
  words: ReadonlySet<string>;
  prefixes: ReadonlySet<string>;
  longest: number;
}

/** A list of words, lower-cased, ready to be looked for. */
export function wordList(entries: readonly string[]): WordList {
  const words = new Set(entries.map((w) => w.toLowerCase()));
  const prefixes = new Set<string>();
  for (const word of words) {
    const chars = Array.from(word);
    chars.forEach((_, i) => {
      prefixes.add(chars.slice(0, i + 1).join(""));
    });
  }
  return { words, prefixes, longest: Math.max(...Array.from(words, (w) => Array.from(w).length)) };
}

/**
 * Whether the stretch from `start`, ending anywhere from `endMin` to `endMax`, reads as a word of the list, its
 * look-alike characters read back as letters in every mix ("p@ssw0rd" → "password", "ki11b111" → "killbill").
 * Read left to right, a reading is given up as soon as no word starts with it, so the mixes stay few however many
 * ambiguous characters there are, and every end shares the reading of what comes before it.
 */
function readsAsWord(
  options: readonly (readonly string[])[],
  start: number,
  endMin: number,
  endMax: number,
  list: WordList,
): boolean {
  const readFrom = (at: number, read: string): boolean => {
    if (at >= endMin && list.words.has(read)) return true;
    if (at >= endMax) return false;
    return (options[at] ?? []).some((o) => list.prefixes.has(read + o) && readFrom(at + 1, read + o));
  };
  return endMin <= endMax && readFrom(start, "");
}

/**
 * A form's letters are mere padding around its digits or symbols when there are no more than PADDING_LETTERS_MAX
 * of them ("x11111111", "Z12345678!"), or a few more that are themselves a sequence or a repetition
 * ("Abc12345678!", "xyz!!!!!!!!").
 */
function lettersArePadding(chars: readonly string[]): boolean {
  const letters = chars.filter((c) => LETTER.test(c));
  return (
    letters.length <= PADDING_LETTERS_MAX ||
    (letters.length < PASSWORD_POLICY.coreMin && isDegenerate(letters.join("")))
  );
}

/**
 * The kinds of core a form is read as (what is not of the kind may be stripped around it): its letters; and its
 * digits and its symbols when its letters are padding.
 */
function coreKinds(chars: readonly string[]): RegExp[] {
  const kinds = chars.some((c) => LETTER.test(c)) ? [LETTER] : [];
  return lettersArePadding(chars) ? [...kinds, DIGIT, SYMBOL] : kinds;
}

/**
 * Whether the form is a word of the list once disguised and padded (ASVS 6.2.4): the form itself, or one of its
 * cores, the form with any number of its leading and trailing padding characters removed. Around letters the
 * padding is what is not a letter ("Password123!" → "password123", …, "password"); a form whose letters are padding
 * is also read as digits padded by letters and symbols ("x123456!" → "123456") and symbols padded by letters and
 * digits ("2024!!!!" → "!!!!"). Cores shorter than `minLength` are not looked up.
 */
export function isPaddedWord(form: string, list: WordList, minLength: number): boolean {
  const chars = Array.from(form);
  const options = chars.map(readingsOf);
  if (readsAsWord(options, 0, chars.length, chars.length, list)) return true;
  return coreKinds(chars).some((kind) => {
    const first = chars.findIndex((c) => kind.test(c));
    const last = chars.findLastIndex((c) => kind.test(c));
    for (let start = 0; first >= 0 && start <= first; start++) {
      const [endMin, endMax] = [Math.max(last + 1, start + minLength), Math.min(chars.length, start + list.longest)];
      if (readsAsWord(options, start, endMin, endMax, list)) return true;
    }
    return false;
  });
}

/** From the first to the last character of a kind; undefined without that kind. */
function spanOf(chars: readonly string[], kind: RegExp): string | undefined {
  const first = chars.findIndex((c) => kind.test(c));
  return first < 0 ? undefined : chars.slice(first, chars.findLastIndex((c) => kind.test(c)) + 1).join("");
}

/**
 * The form and its cores with all padding removed: its letters ("abcdefgh1!" → "abcdefgh"), and, when its letters
 * are padding, its digits ("k87654321" → "87654321") and its symbols ("2024!!!!" → "!!!!").
 */
export function strippedCores(form: string): string[] {
  const chars = Array.from(form);
  const cores = coreKinds(chars).map((kind) => spanOf(chars, kind));
  return [...new Set([form, ...cores.filter((c): c is string => c !== undefined)])];
}
