import { PASSWORD_POLICY } from "@gatehouse/contract";
import {
  DIGIT,
  INVISIBLE,
  LETTER,
  MARKS_AND_INVISIBLE,
  PADDING_LETTERS_MAX,
  SEPARATORS,
  SYMBOL,
} from "./password-characters.ts";
import { readLatinLookAlikes } from "./password-confusables.ts";
import { isDegenerate } from "./password-patterns.ts";

/**
 * How a typed password is reduced to the forms a guesser would start from (ASVS 6.2.4): crackers try every
 * breached password with its case changed, letters swapped for look-alike digits, symbols and letters of other
 * scripts, invisible characters slipped in, digits and symbols added around it, repeated and reversed. We undo
 * each of those and compare what is left. Only these comparison forms change: what is hashed is the password
 * exactly as typed.
 */

/**
 * Look-alike characters read back as letters. "1", "!" and "|" stand for "i" or "l" ("ham1l7on", "he11o"); the
 * rest have one reading.
 */
const LEET: Readonly<Record<string, string>> = {
  "0": "o",
  "2": "z",
  "3": "e",
  "4": "a",
  "5": "s",
  "6": "g",
  "7": "t",
  "8": "b",
  "9": "g",
  "@": "a",
  $: "s",
  "+": "t",
  "€": "e",
};
const AMBIGUOUS_LEET: Readonly<Record<string, readonly string[]>> = {
  "1": ["i", "l"],
  "!": ["i", "l"],
  "|": ["i", "l"],
};
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

/** What each look-alike character may stand for: itself, the letter it looks like, or either for "1", "!", "|". */
const LOOK_ALIKE_READINGS: ReadonlyMap<string, readonly string[]> = new Map(
  [...Object.keys(LEET), ...Object.keys(AMBIGUOUS_LEET)].map((c) => [
    c,
    [...new Set([c, LEET[c] ?? c, ...(AMBIGUOUS_LEET[c] ?? [])])],
  ]),
);
const readingsOf = (c: string) => LOOK_ALIKE_READINGS.get(c) ?? [c];

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

/** Every character that reads as `letter` ("a" → "4@"). */
export function lookAlikesOf(letter: string): string {
  const single = Object.keys(LEET).filter((c) => LEET[c] === letter);
  const ambiguous = Object.keys(AMBIGUOUS_LEET).filter((c) => AMBIGUOUS_LEET[c]?.includes(letter));
  return [...single, ...ambiguous].join("");
}

const reverse = (value: string) => Array.from(value).reverse().join("");

export function withoutInvisible(value: string): string {
  return value.replace(INVISIBLE, "");
}

/** Compatibility-normalised, invisible characters left out, lower-cased ("Ｐａｓｓ" is "pass"): as typed. */
export function foldCase(value: string): string {
  return withoutInvisible(value).normalize("NFKC").toLowerCase();
}

/** Without accents ("pässwörd" → "password") and invisible characters, as most keyboards type the lists. */
export function stripAccents(value: string): string {
  return value.normalize("NFKD").replace(MARKS_AND_INVISIBLE, "").normalize("NFC");
}

/**
 * The plain reading: no accents nor invisible characters, letters of other scripts that look Latin read as Latin
 * ("Раssword" with Cyrillic "Р" and "а"), lower-cased. Marks go again after lower-casing ("İ" → "i̇").
 */
export function plainForm(value: string): string {
  return stripAccents(readLatinLookAlikes(stripAccents(value)).toLowerCase());
}

export function withoutSeparators(value: string): string {
  return value.replace(SEPARATORS, "");
}

/**
 * The smallest unit the whole value repeats (the last repetition may be cut short): "abcabcab" → "abc",
 * "aaaa" → "a"; undefined when the value does not repeat a unit at least twice.
 */
export function repeatedUnit(value: string): string | undefined {
  const chars = Array.from(value);
  for (let period = 1; period <= chars.length / 2; period++) {
    if (chars.every((c, i) => i < period || c === chars[i - period])) return chars.slice(0, period).join("");
  }
  return undefined;
}

/** One reading for every look-alike ("@" and "a", "0" and "o", "1", "!", "l" and "i"), to find repeats by. */
const sameLooking = (c: string) => (c === "l" || AMBIGUOUS_LEET[c] ? "i" : (LEET[c] ?? c));

/** A stretch of characters, by where it starts and how long it is. */
interface Stretch {
  at: number;
  length: number;
}

/** The readings written one UTF-16 unit a character, so that native string search finds stretches by index. */
function encode(readings: readonly string[]): string {
  const units = new Map<string, string>();
  return readings
    .map((r) => units.get(r) ?? units.set(r, String.fromCharCode(PRIVATE_USE + units.size)).get(r))
    .join("");
}
const PRIVATE_USE = 0xe000;

/** The first stretch of `length` characters found again further on without overlapping, and where it recurs. */
function repeatOf(text: string, length: number): Stretch[] | undefined {
  for (let at = 0; at + 2 * length <= text.length; at++) {
    const stretch = text.slice(at, at + length);
    const again: Stretch[] = [];
    for (let from = text.indexOf(stretch, at + length); from >= 0; from = text.indexOf(stretch, from + length)) {
      again.push({ at: from, length });
    }
    if (again.length > 0) return again;
  }
  return undefined;
}

/**
 * The recurrences of the longest stretch of PASSWORD_POLICY.coreMin characters or more that recurs. A shorter one
 * recurs whenever a longer one does, so the length is found by halving.
 */
function longestRepeats(text: string): Stretch[] {
  let found: Stretch[] = [];
  let shortest: number = PASSWORD_POLICY.coreMin;
  let longest = Math.floor(text.length / 2);
  while (shortest <= longest) {
    const length = Math.floor((shortest + longest) / 2);
    const again = repeatOf(text, length);
    if (again) [found, shortest] = [again, length + 1];
    else longest = length - 1;
  }
  return found;
}

/**
 * The value without the recurrences of its longest repeated stretch (PASSWORD_POLICY.coreMin characters or more),
 * wherever they stand and in whatever spelling, or undefined when nothing that long repeats: "trustno1trustno1!" →
 * "trustno1!", "dragon2024dr@gon!" → "dragon2024!", "dragon1dragon2dragon3" → "dragon123".
 */
export function withoutRepeats(value: string): string | undefined {
  const chars = Array.from(value);
  const again = longestRepeats(encode(chars.map(sameLooking)));
  if (again.length === 0) return undefined;
  return chars.filter((_, i) => !again.some(({ at, length }) => i >= at && i < at + length)).join("");
}

/**
 * The whole-password forms: case folded as typed and in its plain reading, with and without separators, reversed,
 * and the unit of a repeated password ("password1password1" → "password1"). Empty forms are dropped.
 */
export function passwordForms(password: string): string[] {
  const folded = foldCase(password);
  const plain = plainForm(password);
  const base = [folded, plain, withoutSeparators(folded), withoutSeparators(plain)];
  const forms = new Set<string>();
  for (const form of base) {
    for (const f of [form, reverse(form)]) {
      if (f === "") continue;
      forms.add(f);
      const unit = repeatedUnit(f);
      if (unit) forms.add(unit);
    }
  }
  return [...forms];
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
