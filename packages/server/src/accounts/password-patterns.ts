import { PASSWORD_POLICY } from "@gatehouse/contract";

/**
 * Degenerate passwords (ASVS 6.2.4's spirit: guessed before any list is tried): one character or one short unit
 * repeated, and runs along the alphabet, the digits or a keyboard row, forwards or backwards.
 */

/**
 * Strings a "simple sequence" runs along. Rows of the QWERTY, QWERTZ and AZERTY layouts with their punctuation;
 * the digits twice so a run may wrap ("7890123"). Alphabets of any script are caught by code point instead.
 */
const RUNS = [
  "01234567890123456789",
  "`1234567890-=",
  "qwertyuiop[]\\",
  "asdfghjkl;'",
  "zxcvbnm,./",
  "qwertzuiopü",
  "asdfghjklöä",
  "yxcvbnm",
  "azertyuiop",
  "qsdfghjklm",
  "wxcvbn",
];
const REVERSED_RUNS = RUNS.map((run) => Array.from(run).reverse().join(""));

/** A run of consecutive code points, up or down ("abcdefgh", "87654321", "αβγδ"). */
function isCodePointRun(chars: readonly string[]): boolean {
  const points = chars.map((c) => c.codePointAt(0) ?? 0);
  const steps = points.slice(1).map((p, i) => p - (points[i] ?? 0));
  return steps.length > 0 && (steps.every((s) => s === 1) || steps.every((s) => s === -1));
}

/** A simple sequence: consecutive code points or a stretch of a keyboard row, in either direction. */
export function isSequence(value: string): boolean {
  const chars = Array.from(value);
  if (chars.length < 3) return false;
  return isCodePointRun(chars) || RUNS.some((r) => r.includes(value)) || REVERSED_RUNS.some((r) => r.includes(value));
}

/**
 * One unit shorter than the registration minimum repeated over the whole value, so the repetition is what makes it
 * long enough: "aaaaaaaa", "121212121", "abcabcab", "passpass".
 */
export function isShortRepetition(value: string): boolean {
  const chars = Array.from(value);
  for (let period = 1; period <= Math.min(PASSWORD_POLICY.repeatedUnitMax, chars.length / 2); period++) {
    if (chars.every((c, i) => i < period || c === chars[i - period])) return true;
  }
  return chars.length === 1;
}

/** A degenerate string: a short unit repeated, or a simple sequence. */
export function isDegenerate(value: string): boolean {
  return isShortRepetition(value) || isSequence(value);
}

/** Only whitespace, of any kind and length (a password of spaces is accepted by the length rules). */
export function isBlank(password: string): boolean {
  return password.trim() === "";
}
