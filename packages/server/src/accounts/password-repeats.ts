import { PASSWORD_POLICY } from "@gatehouse/contract";
import { sameLooking } from "./password-variants.ts";

/**
 * A breached word written more than once in a password (ASVS 6.2.4): "Trustno1Trustno1!", "Dragon2024Dr@gon!" are
 * "trustno1" and "dragon" to a cracker's rules, however the repetitions are spelt and whatever stands between.
 */

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
/** Where the one-unit stand-ins start: the Private Use Area, whose 6,400 units outnumber a password's characters. */
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
