/**
 * How a typed password is reduced to the forms a guesser would start from (ASVS 6.2.4): crackers try every
 * breached password with its case changed, letters swapped for look-alike digits and symbols, digits and
 * symbols added around it, and reversed. We undo each of those and compare what is left.
 */

/** Spaces and the punctuation people put between words ("pass word", "i-love-you", "john.smith"). */
const SEPARATORS = /[\s\-_.]+/gu;
const COMBINING_MARKS = /\p{M}+/gu;

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
/** Up to this many ambiguous characters every mix of readings is tried (2⁴ = 16); beyond, all-"i" and all-"l". */
const AMBIGUOUS_MIX_MAX = 4;

/** Reads look-alike characters back as letters: every reading of the ambiguous ones, within a bound. */
export function leetReadings(value: string): string[] {
  const chars = Array.from(value, (c) => LEET[c] ?? c);
  const ambiguous = chars.flatMap((c, i) => (AMBIGUOUS_LEET[c] ? [i] : []));
  const mixes =
    ambiguous.length <= AMBIGUOUS_MIX_MAX
      ? Array.from({ length: 2 ** ambiguous.length }, (_, m) => ambiguous.map((_, bit) => (m >> bit) & 1))
      : [ambiguous.map(() => 0), ambiguous.map(() => 1)];
  return mixes.map((mix) => {
    const read = [...chars];
    ambiguous.forEach((at, k) => {
      read[at] = AMBIGUOUS_LEET[chars[at] ?? ""]?.[mix[k] ?? 0] ?? read[at] ?? "";
    });
    return read.join("");
  });
}

/** Every character that reads as `letter` ("a" → "4@"). */
export function lookAlikesOf(letter: string): string {
  const single = Object.keys(LEET).filter((c) => LEET[c] === letter);
  const ambiguous = Object.keys(AMBIGUOUS_LEET).filter((c) => AMBIGUOUS_LEET[c]?.includes(letter));
  return [...single, ...ambiguous].join("");
}

const reverse = (value: string) => Array.from(value).reverse().join("");

/** Compatibility-normalised and lower-cased (full-width "Ｐａｓｓ" is "pass"), as typed. */
export function foldCase(value: string): string {
  return value.normalize("NFKC").toLowerCase();
}

/** Without accents ("pässwörd" → "password"), as most keyboards type the breached lists. */
export function stripAccents(value: string): string {
  return value.normalize("NFKD").replace(COMBINING_MARKS, "").normalize("NFC");
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

/**
 * The whole-password forms: case folded, with and without accents and separators, reversed, and the unit of a
 * repeated password ("password1password1" → "password1"). Empty forms are dropped.
 */
export function passwordForms(password: string): string[] {
  const folded = foldCase(password);
  const plain = stripAccents(folded);
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

/** Whichever class a core is made of; what is not of it may be stripped around it. */
const LETTER_CORE = /\p{L}/u;
const DIGIT_CORE = /\p{N}/u;
const SYMBOL_CORE = /[^\p{L}\p{N}]/u;

/** The kinds of core a form is read as: its letters, or, without letters, its digits and its symbols. */
function coreKinds(chars: readonly string[]): RegExp[] {
  return chars.some((c) => LETTER_CORE.test(c)) ? [LETTER_CORE] : [DIGIT_CORE, SYMBOL_CORE];
}

/**
 * The cores of a form: the form with any number of its leading and trailing padding characters removed. In a
 * form with letters the padding is what is not a letter ("Password123!" → "password123", …, "password"); a
 * form without letters is read both ways, digits padded by symbols ("123456!" → "123456") and symbols padded by
 * digits ("2024!!!!" → "!!!!"). Cores shorter than `minLength` or longer than `maxLength` are left out, except
 * the form itself.
 */
export function paddingCores(form: string, minLength: number, maxLength: number): string[] {
  const chars = Array.from(form);
  const cores = new Set([form]);
  for (const kind of coreKinds(chars)) {
    const first = chars.findIndex((c) => kind.test(c));
    if (first < 0) continue;
    const last = chars.findLastIndex((c) => kind.test(c));
    for (let start = 0; start <= first; start++) {
      const ends = { from: Math.max(last + 1, start + minLength), to: Math.min(chars.length, start + maxLength) };
      for (let end = ends.from; end <= ends.to; end++) cores.add(chars.slice(start, end).join(""));
    }
  }
  return [...cores];
}

/** The form and its cores with all padding removed ("abcdefgh1!" → "abcdefgh"; "2024!!!!" → "!!!!"). */
export function strippedCores(form: string): string[] {
  const chars = Array.from(form);
  const cores = new Set([form]);
  for (const kind of coreKinds(chars)) {
    const first = chars.findIndex((c) => kind.test(c));
    if (first >= 0) cores.add(chars.slice(first, chars.findLastIndex((c) => kind.test(c)) + 1).join(""));
  }
  return [...cores];
}
