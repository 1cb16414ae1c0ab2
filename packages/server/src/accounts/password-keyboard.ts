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
    tokens.forEach((token, direction) => {
      if (key && token?.[0]) listed.set(pair(key, token[0]), direction);
    });
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

/** An appended walk is this many keys at most; the rest of its run is the word's ("monkey7ujm": "y7ujm"). */
const APPENDED_WALK_MAX = 6;
/** A walk may run on into the word's first keys, up to this many ("8ik<m4r$eille": "8ik<m"). */
const WALK_INTO_WORD_MAX = 3;

/** Where `chars` may be cut to take walks off its start: after them, or inside them (see walkCuts). */
interface Cuts {
  /** None, or after one of the two walks nearest the word (with the digits and symbols before and between). */
  after: number[];
  /** Inside one of them, where the part cut off is a walk of its own. */
  inside: number[];
}

/**
 * Where `chars` may be cut to take walks off its start, with the digits and symbols before and between them: after
 * one of the two walks nearest the word ("zaq1sw3etness": "sw3e" is the word's), or inside one where an appended
 * walk may end ("newye4r4rfv" backwards: the walk "vfr4r4e" holds the word's "e4r").
 */
function walkCuts(board: Keyboard, chars: readonly string[]): Cuts {
  let reach = 0;
  const walks = walksOn(board, chars);
  const inWalk = (i: number) => walks.some(({ start, end }) => i >= start && i < end);
  while (reach < chars.length && (inWalk(reach) || !LETTER.test(chars[reach] ?? ""))) reach++;
  const nearest = walks.filter((walk) => walk.end <= reach).slice(-2);
  const inside = nearest.flatMap(({ start, end }) => {
    const ends = Array.from({ length: end - start }, (_, i) => start + i + 1);
    const likely = ends.filter((cut) => cut - start <= APPENDED_WALK_MAX || end - cut <= WALK_INTO_WORD_MAX);
    return likely.filter((cut) => cut < end && isWalk(board, chars.slice(start, cut)));
  });
  return { after: [0, ...nearest.map(({ end }) => end)], inside };
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
  const trim = (start: number, end: number) => {
    if (start < chars.length - end) trimmed.add(chars.slice(start, chars.length - end).join(""));
  };
  for (const board of KEYBOARDS) {
    const head = walkCuts(board, chars);
    const tail = walkCuts(board, backwards);
    for (const start of head.after) for (const end of [...tail.after, ...tail.inside]) trim(start, end);
    for (const start of head.inside) for (const end of tail.after) trim(start, end);
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
