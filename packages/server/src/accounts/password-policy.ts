import { BRANDS, PASSWORD_POLICY, type PasswordPolicyCode } from "@gatehouse/contract";
import zxcvbnCommon from "@zxcvbn-ts/language-common";
import { isBlank, isDegenerate } from "./password-patterns.ts";
import {
  foldCase,
  leetReadings,
  lookAlikesOf,
  paddingCores,
  passwordForms,
  stripAccents,
  strippedCores,
  withoutSeparators,
} from "./password-variants.ts";

/**
 * The password policy for registration and every new password (ASVS 6.2.4, 6.2.11; docs/decisions.md
 * "Password policy"). Checked in this order, the first that matches refuses:
 *
 * 1. `weak_password` — only whitespace; or, in any form (case folded, accents and separators removed, reversed),
 *    one short unit repeated ("aaaaaaaa", "abcabcab") or a simple sequence ("12345678", "qwertyui", "hgfedcba"),
 *    also with digits and symbols around it ("abcdefgh1!").
 * 2. `context_password` — built on a context word: every brand's name and id, the product's name, and, when
 *    known, the person's first and last name and e-mail address (local part, its pieces, domain name). Words
 *    shorter than PASSWORD_POLICY.contextWordMin are not looked for, so a passphrase is not refused for holding
 *    "Ann". The words are found with look-alike characters too ("G4t3house"); once every one is removed, the
 *    password is refused when what is left has fewer than PASSWORD_POLICY.contextRemainderMin letters
 *    ("Gatehouse2024!", "ann.lee@example.com") or is itself common or degenerate ("EnscapePassword").
 * 3. `common_password` — one of the PASSWORD_POLICY.breachedListSize most common breached passwords, or a
 *    trivial variant of one: any case, look-alike characters ("P@ssw0rd"), digits and symbols before or after
 *    it ("Password123!", "!!monkey2024"), separators ("pass word"), reversed ("drowssap"), repeated
 *    ("dragondragon").
 */

/** The breached passwords, lower-cased, built once at start (the list is frequency-ranked). */
const BREACHED: ReadonlySet<string> = new Set(
  (zxcvbnCommon.dictionary["passwords-common"] as string[])
    .slice(0, PASSWORD_POLICY.breachedListSize)
    .map((p) => p.toLowerCase()),
);
/** No core longer than the list's longest entry can be on it: the bound keeps the variants few. */
const BREACHED_MAX_LENGTH = Math.max(...Array.from(BREACHED, (p) => Array.from(p).length));

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

/** Cores of a form short enough to be on the list, each with its look-alike readings. */
function coreVariants(form: string): string[] {
  return paddingCores(form, PASSWORD_POLICY.coreMin, BREACHED_MAX_LENGTH).flatMap((core) => [
    core,
    ...leetReadings(core),
  ]);
}

function isBreachedForm(form: string): boolean {
  return coreVariants(form).some((variant) => BREACHED.has(variant));
}

/** Degenerate as it is, or once its digits or symbols around are stripped ("aaaaaaaa1!", "abcdefgh2024"). */
function isDegenerateForm(form: string): boolean {
  return strippedCores(form).some(
    (core) => (core === form || Array.from(core).length >= PASSWORD_POLICY.coreMin) && isDegenerate(core),
  );
}

/** Case-folded, accent-free, separator-free: how context words and passwords are compared. */
const contextForm = (value: string) => withoutSeparators(stripAccents(foldCase(value)));

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

const LETTERS = /\p{L}/gu;

function isBuiltOnContext(forms: readonly string[], words: readonly string[]): boolean {
  if (words.length === 0) return false;
  const patterns = words.map(lookAlikePattern);
  return forms.some((form) => {
    let rest = contextForm(form);
    for (const pattern of patterns) rest = rest.replace(pattern, "");
    if (rest === contextForm(form)) return false;
    const letters = rest.match(LETTERS)?.length ?? 0;
    return (
      letters < PASSWORD_POLICY.contextRemainderMin ||
      isDegenerateForm(rest) ||
      coreVariants(rest).some((v) => BREACHED.has(v))
    );
  });
}
