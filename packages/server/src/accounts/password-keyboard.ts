import { PASSWORD_LIMITS, PASSWORD_POLICY } from "@gatehouse/contract";
import zxcvbnCommon from "@zxcvbn-ts/language-common";
import { DIGIT, LETTER, PADDING_LETTERS_MAX, SEPARATOR } from "./password-characters.ts";

/**
 * Keyboard walks (ASVS 6.2.4: guessed before any list is tried): runs of neighbouring keys along a row, down a
 * column ("1qaz", "zaq1"), along a diagonal ("zse4") or zigzagging ("1q2w3e4r"), with or without Shift
 * ("!QAZ2wsx", "!@#$%^&*"), and passwords stitched from several of them ("1qaz2wsx3edc").
 */

/**
 * The layouts looked at, from the adjacency graphs zxcvbn-ts ships (a maintained public model of each layout;
 * every neighbour is listed as its unshifted and shifted character, so a shifted walk is the same walk): the
 * keyboards of our nine languages' countries. Dvorak is left out (few type on it, and its home row makes walks of
 * English words: "startup" ends in one); so are number pads: on a 3×3 grid most digits neighbour each other.
 */
const LAYOUTS = ["qwerty", "qwertz", "azerty"] as const;

/** A walk counts from this many keys on; shorter runs are what any word has ("as", "we", "ion"). */
const WALK_RUN_MIN = 4;
/** Characters outside the walks allowed around or between them ("Aa1" to meet composition rules). */
const WALK_PADDING_MAX = 3;
/** A walk padded with letters must be this long, so a word that holds a short walk ("always": "ways") is no walk. */
const WALK_WITH_LETTERS_MIN = 6;

interface Keyboard {
  /** Every character to the key it is typed with (its unshifted character). */
  keyOf: ReadonlyMap<string, string>;
  /** Every key to the keys next to it, each with its direction (its place in the graph's list: left, up-left, …). */
  neighbours: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** The keys that type a digit, with or without Shift (AZERTY's "é" types "2"). */
  digitKeys: ReadonlySet<string>;
}

type AdjacencyGraph = Record<string, (string | null)[]>;

/** Every character to its key, named as the graph lists it among neighbours ("2@" is the key "2"); first one wins. */
function keysOf(graph: AdjacencyGraph): Map<string, string> {
  const keyOf = new Map<string, string>();
  for (const token of Object.values(graph).flat()) {
    const key = token?.[0];
    if (!key) continue;
    for (const c of Array.from(token.toLowerCase())) if (!keyOf.has(c)) keyOf.set(c, key);
  }
  return keyOf;
}

/**
 * Keys listed next to each other both ways. A one-way listing is left out: zxcvbn-ts's AZERTY graph gives `"` (the
 * "3" key) the neighbours of the `^` key, whose shifted character it also names.
 */
function keyboard(graph: AdjacencyGraph): Keyboard {
  const keyOf = keysOf(graph);
  const listed = new Map<string, number>();
  const pair = (a: string, b: string) => `${a}\u0000${b}`;
  for (const [c, tokens] of Object.entries(graph)) {
    const key = keyOf.get(c.toLowerCase());
    if (key) tokens.forEach((token, direction) => token?.[0] && listed.set(pair(key, token[0]), direction));
  }
  const neighbours = new Map<string, Map<string, number>>();
  for (const [entry, direction] of listed) {
    const [a = "", b = ""] = entry.split("\u0000");
    if (listed.has(pair(b, a))) neighbours.set(a, (neighbours.get(a) ?? new Map<string, number>()).set(b, direction));
  }
  const digitKeys = new Set(Array.from(keyOf).flatMap(([c, key]) => (DIGIT.test(c) ? [key] : [])));
  return { keyOf, neighbours, digitKeys };
}

const graphs = zxcvbnCommon.adjacencyGraphs as Record<(typeof LAYOUTS)[number], AdjacencyGraph>;
const KEYBOARDS: readonly Keyboard[] = LAYOUTS.map((name) => keyboard(graphs[name]));

/** Next to each other on the keyboard, or the same key with Shift toggled ("1!", "2@"). */
function isStep(board: Keyboard, from: string, to: string): boolean {
  const a = board.keyOf.get(from);
  const b = board.keyOf.get(to);
  if (a === undefined || b === undefined) return false;
  return (a === b && from !== to) || (board.neighbours.get(a)?.has(b) ?? false);
}

/** Every step in one direction: a stretch of a row ("asdf", "lkjh"), a column or a diagonal. */
function isStraight(board: Keyboard, run: readonly string[]): boolean {
  const directions = new Set(
    run
      .slice(1)
      .map((c, i) => board.neighbours.get(board.keyOf.get(run[i] ?? "") ?? "")?.get(board.keyOf.get(c) ?? "")),
  );
  return directions.size === 1 && !directions.has(undefined);
}

/**
 * A walk: WALK_RUN_MIN keys straight on, or with one of the digit row or a symbol other than a separator, or more
 * keys than that besides separators. Some four-letter words zigzag over neighbouring keys ("drew", "sway", "polo";
 * "plop_" with the "_" next to the "p"), and are no walk here.
 */
function isWalk(board: Keyboard, run: readonly string[]): boolean {
  const marked = run.some(
    (c) => board.digitKeys.has(board.keyOf.get(c) ?? "") || !(LETTER.test(c) || SEPARATOR.test(c)),
  );
  const keys = run.filter((c) => !SEPARATOR.test(c)).length;
  return (run.length >= WALK_RUN_MIN && (marked || isStraight(board, run))) || keys > WALK_RUN_MIN;
}

/** A stretch of characters, from `start` up to `end`. */
interface Span {
  start: number;
  end: number;
}

/** The walks on this keyboard, in order: the runs of neighbouring keys that are walks. */
function walksOn(board: Keyboard, chars: readonly string[]): Span[] {
  const walks: Span[] = [];
  let start = 0;
  for (let end = 1; end <= chars.length; end++) {
    if (end < chars.length && isStep(board, chars[end - 1] ?? "", chars[end] ?? "")) continue;
    if (isWalk(board, chars.slice(start, end))) walks.push({ start, end });
    start = end;
  }
  return walks;
}

/**
 * Where `chars` may be cut to take walks off its start, with the digits and symbols before and between them: after
 * each of them, or inside one once WALK_RUN_MIN of its keys make a walk of their own (the walk "e4r4rfv" of
 * "newye4r4rfv" holds the word's "e4r": cut after "4rfv", backwards).
 */
function walkCuts(board: Keyboard, chars: readonly string[]): number[] {
  let reach = 0;
  const walks = walksOn(board, chars);
  const inWalk = (i: number) => walks.some(({ start, end }) => i >= start && i < end);
  while (reach < chars.length && (inWalk(reach) || !LETTER.test(chars[reach] ?? ""))) reach++;
  const cuts = [0];
  for (const { start, end } of walks.filter((walk) => walk.end <= reach)) {
    for (let cut = start + WALK_RUN_MIN; cut <= end; cut++) {
      if (cut === end || isWalk(board, chars.slice(start, cut))) cuts.push(cut);
    }
  }
  return cuts;
}

/**
 * The value with a keyboard walk cut off its start, its end or both, on each layout, with any digits and symbols
 * beyond it: "monkey!qaz" → "monkey", "1qaz2wsxdragon" → "dragon", "passwordzaq10" → "password". Only what has
 * letters and is long enough: a breached word, not digits, is looked for behind a walk. The value itself is not
 * among them.
 */
export function walkTrimmings(value: string): string[] {
  const chars = Array.from(value);
  if (!chars.some((c) => LETTER.test(c))) return [];
  const backwards = [...chars].reverse();
  const trimmed = new Set<string>();
  for (const board of KEYBOARDS) {
    for (const start of walkCuts(board, chars)) {
      for (const end of walkCuts(board, backwards)) {
        if (start < chars.length - end) trimmed.add(chars.slice(start, chars.length - end).join(""));
      }
    }
  }
  trimmed.delete(value);
  return [...trimmed].filter((word) => LETTER.test(word) && Array.from(word).length >= PASSWORD_POLICY.coreMin);
}

/**
 * Made of keyboard walks on one layout, but for a little padding: at most WALK_PADDING_MAX characters between and
 * around them, of which at most PADDING_LETTERS_MAX letters ("1qaz2wsx3edc", "!Q2w#E4r%T6y", "Zxcvbnm,./12Q",
 * "!@#$%^&*()Aa1"); around walks that hold a letter or are as long as the shortest password, also any digits and
 * symbols ("20241qaz2wsx", "!@#$%^&*()Aa1!"), as around a word. Shorter walks of digits and symbols get no more:
 * most strings of digits hold one somewhere.
 */
export function isKeyboardWalk(value: string): boolean {
  const chars = Array.from(value);
  if (chars.length < PASSWORD_POLICY.coreMin) return false;
  return KEYBOARDS.some((board) => {
    const walks = walksOn(board, chars);
    const first = walks[0]?.start;
    const last = walks.at(-1)?.end;
    if (first === undefined || last === undefined) return false;
    const walk = chars.slice(first, last);
    const inner = walk.filter((_, i) => !walks.some(({ start, end }) => first + i >= start && first + i < end));
    const outer = [...chars.slice(0, first), ...chars.slice(last)];
    const rest = [...inner, ...outer];
    const letters = rest.filter((c) => LETTER.test(c)).length;
    const walked = chars.length - rest.length;
    const padded = walk.some((c) => LETTER.test(c)) || walked >= PASSWORD_LIMITS.registerMin;
    return (
      inner.length <= WALK_PADDING_MAX &&
      (rest.length <= WALK_PADDING_MAX || padded) &&
      letters <= PADDING_LETTERS_MAX &&
      (letters === 0 || walked >= WALK_WITH_LETTERS_MIN)
    );
  });
}
