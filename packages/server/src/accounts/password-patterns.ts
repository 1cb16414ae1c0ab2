import { PASSWORD_POLICY } from "@gatehouse/contract";
import { isKeyboardWalk } from "./password-keyboard.ts";

/**
 * Degenerate passwords (ASVS 6.2.4's spirit: guessed before any list is tried): one character or one short unit
 * repeated, runs along the alphabet, the digits or a keyboard row, forwards or backwards, and keyboard walks.
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
 * One unit shorter than the registration minimum repeated over the whole value (at least `times` times), so the
 * repetition is what makes it long enough: "aaaaaaaa", "121212121", "abcabcab", "passpass".
 */
export function isShortRepetition(value: string, times = 2): boolean {
  const chars = Array.from(value);
  for (let period = 1; period <= Math.min(PASSWORD_POLICY.repeatedUnitMax, chars.length / times); period++) {
    if (chars.every((c, i) => i < period || c === chars[i - period])) return true;
  }
  return chars.length === 1;
}

/** Stray characters at the ends of a repetition or a sequence that leave it as weak ("aaaaaaab", "xabcdefgh"). */
const STRAY_MAX = 2;
/** What is left once the stray characters are gone must be this long: "anana" of "bananas" is a word's, not a run. */
const STRAY_RUN_MIN = 6;
/** And repeat its unit this often: "ntonto" of "buntonto" or "inging" of "stinging" are a word's too. */
const STRAY_REPEATS_MIN = 3;

/** The value without one or two characters at its ends, while STRAY_RUN_MIN are left. */
function withoutStrays(value: string): string[] {
  const chars = Array.from(value);
  const trimmed: string[] = [];
  for (let lead = 0; lead <= STRAY_MAX; lead++) {
    for (let trail = 0; lead + trail <= STRAY_MAX; trail++) {
      if (lead + trail > 0 && chars.length - lead - trail >= STRAY_RUN_MIN) {
        trimmed.push(chars.slice(lead, chars.length - trail).join(""));
      }
    }
  }
  return trimmed;
}

/**
 * A degenerate string: a short unit repeated or a simple sequence, but for a stray character or two at its ends,
 * or keyboard walks.
 */
export function isDegenerate(value: string): boolean {
  return (
    isShortRepetition(value) ||
    isSequence(value) ||
    withoutStrays(value).some((v) => isShortRepetition(v, STRAY_REPEATS_MIN) || isSequence(v)) ||
    isKeyboardWalk(value)
  );
}
