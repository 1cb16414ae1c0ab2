import { INVISIBLE, MARKS_AND_INVISIBLE, SEPARATORS } from "./password-characters.ts";
import { readLatinLookAlikes } from "./password-confusables.ts";

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

/** What each look-alike character may stand for: itself, the letter it looks like, or either for "1", "!", "|". */
const LOOK_ALIKE_READINGS: ReadonlyMap<string, readonly string[]> = new Map(
  [...Object.keys(LEET), ...Object.keys(AMBIGUOUS_LEET)].map((c) => [
    c,
    [...new Set([c, LEET[c] ?? c, ...(AMBIGUOUS_LEET[c] ?? [])])],
  ]),
);
export const readingsOf = (c: string) => LOOK_ALIKE_READINGS.get(c) ?? [c];

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
export const sameLooking = (c: string) => (c === "l" || AMBIGUOUS_LEET[c] ? "i" : (LEET[c] ?? c));

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
