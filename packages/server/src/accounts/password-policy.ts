import { BRANDS, PASSWORD_LIMITS, PASSWORD_POLICY, type PasswordPolicyCode } from "@gatehouse/contract";
import zxcvbnCommon from "@zxcvbn-ts/language-common";
import { isPaddedWord, strippedCores, wordList } from "./password-cores.ts";
import { walkTrimmings } from "./password-keyboard.ts";
import { isDegenerate } from "./password-patterns.ts";
import { withoutRepeats } from "./password-repeats.ts";
import { lookAlikesOf, passwordForms, plainForm, withoutInvisible, withoutSeparators } from "./password-variants.ts";

/**
 * The password policy for registration and every new password (ASVS 6.2.4, 6.2.11; docs/decisions.md
 * "Password policy"). Checked in this order, the first that matches refuses:
 *
 * 1. `weak_password` — only whitespace or invisible characters, or shorter than the registration minimum without
 *    the invisible ones; or, in any form (case folded, accents, invisible characters and separators removed,
 *    reversed), one short unit repeated ("aaaaaaaa", "abcabcab"), a simple sequence ("12345678", "qwertyui",
 *    "hgfedcba") or keyboard walks, shifted or not ("1qaz2wsx3edc", "!Q2w#E4r%T6y"), also with digits and symbols
 *    around it ("abcdefgh1!") or, around digits and symbols, a letter or two ("x11111111", "Z12345678!").
 * 2. `context_password` — built on a context word: every brand's name and id, the product's name, and, when
 *    known, the person's first and last name and e-mail address (local part, its pieces, domain name). Words
 *    shorter than PASSWORD_POLICY.contextWordMin are not looked for, so a passphrase is not refused for holding
 *    "Ann". The words are found with look-alike characters too ("G4t3house"); once every one is removed, the
 *    password is refused when what is left has fewer than PASSWORD_POLICY.contextRemainderMin letters
 *    ("Gatehouse2024!", "ann.lee@example.com") or is itself common or degenerate ("EnscapePassword").
 * 3. `common_password` — one of the PASSWORD_POLICY.breachedListSize most common breached passwords, or a
 *    trivial variant of one: any case, look-alike characters ("P@ssw0rd") and letters of other scripts ("Раssword"
 *    in Cyrillic "Р" and "а"), invisible characters inside it ("Pass\u200Bword"), digits and symbols before or
 *    after it ("Password123!", "!!monkey2024"), keyboard walks before or after it ("Monkey!QAZ"), separators
 *    ("pass word"), reversed ("drowssap"), repeated, whole or anywhere in it ("dragondragon", "Dragon2024Dragon!").
 */

/** The breached passwords, lower-cased, built once at start (the list is frequency-ranked). */
const BREACHED = wordList(
  (zxcvbnCommon.dictionary["passwords-common"] as string[]).slice(0, PASSWORD_POLICY.breachedListSize),
);
const LETTERS = /\p{L}/gu;

/** What is known about the person whose password it is; registration's first step knows only the address. */
export interface PasswordContext {
  email?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
}

/** The refusal of the password policy, or undefined when the password may be used. */
export function passwordRefusal(password: string, context: PasswordContext = {}): PasswordPolicyCode | undefined {
  const forms = passwordForms(password);
  if (isBlank(password) || forms.some(isDegenerateForm)) return "weak_password";
  if (isBuiltOnContext(forms, contextWords(context))) return "context_password";
  if (forms.some(isBreachedForm)) return "common_password";
  return undefined;
}

/** On the list, as typed or read without its look-alikes, alone or padded. */
const isBreached = (value: string) => isPaddedWord(value, BREACHED, PASSWORD_POLICY.coreMin);

/**
 * On the list once padded, disguised, repeated anywhere in it ("dragon2024dragon!" is "dragon2024!"), or with a
 * keyboard walk before or after it ("monkey!qaz").
 */
function isBreachedForm(form: string): boolean {
  return [form, withoutRepeats(form) ?? form, ...walkTrimmings(form)].some(isBreached);
}

/** Degenerate as it is, or once its padding is stripped ("aaaaaaaa1!", "abcdefgh2024", "x11111111"). */
function isDegenerateForm(form: string): boolean {
  return strippedCores(form).some(
    (core) => (core === form || Array.from(core).length >= PASSWORD_POLICY.coreMin) && isDegenerate(core),
  );
}

/**
 * Only whitespace and invisible characters, of any kind and length (a password of spaces is accepted by the length
 * rules); or too short once the invisible characters are left out, since they count for the length rules but add
 * nothing a person sees ("Xq7" and five zero-width spaces).
 */
function isBlank(password: string): boolean {
  const visible = withoutInvisible(password);
  return visible.trim() === "" || Array.from(visible).length < PASSWORD_LIMITS.registerMin;
}

/** Plain (see plainForm) and separator-free: how context words and passwords are compared. */
const contextForm = (value: string) => withoutSeparators(plainForm(value));

/** The product's own words: every brand's display name (whole and word by word) and id. */
const PRODUCT_WORDS: readonly string[] = Object.values(BRANDS).flatMap((brand) => [
  brand.id,
  brand.name,
  ...brand.name.split(/\s+/u),
]);

/** The context words of a password, long enough to look for, longest first (so "annlee" goes before "anne"). */
export function contextWords(context: PasswordContext): string[] {
  const names = [context.firstName, context.lastName].filter((n): n is string => Boolean(n));
  const words = [
    ...PRODUCT_WORDS,
    ...names.flatMap((n) => [n, ...n.split(/[\s\-'’.]+/u)]),
    names.join(""),
    ...emailWords(context.email),
  ];
  const usable = new Set(words.map(contextForm).filter((w) => Array.from(w).length >= PASSWORD_POLICY.contextWordMin));
  return [...usable].sort((a, b) => b.length - a.length);
}

/** The whole address, its local part (without a +tag) and the pieces of it, and the domain's name. */
function emailWords(email: string | undefined): string[] {
  if (!email?.includes("@")) return [];
  const at = email.lastIndexOf("@");
  const local = email.slice(0, at).split("+")[0] ?? "";
  const domainLabels = email.slice(at + 1).split(".");
  return [email, local, ...local.split(/[.\-_]+/u), ...domainLabels.slice(0, -1)];
}

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");

/** A pattern for a word that also matches its look-alike spelling ("gatehouse" matches "g4t3h0use"). */
function lookAlikePattern(word: string): RegExp {
  const classes = Array.from(word, (c) => {
    const others = lookAlikesOf(c);
    return others ? `[${escapeRegExp(c + others)}]` : escapeRegExp(c);
  });
  return new RegExp(classes.join(""), "gu");
}

function isBuiltOnContext(forms: readonly string[], words: readonly string[]): boolean {
  if (words.length === 0) return false;
  const patterns = words.map(lookAlikePattern);
  return forms.some((form) => {
    let rest = contextForm(form);
    for (const pattern of patterns) rest = rest.replace(pattern, "");
    if (rest === contextForm(form)) return false;
    const letters = rest.match(LETTERS)?.length ?? 0;
    return letters < PASSWORD_POLICY.contextRemainderMin || isDegenerateForm(rest) || isBreached(rest);
  });
}
