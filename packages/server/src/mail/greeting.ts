import type { Language } from "@gatehouse/contract";
import type { MailKind } from "./kinds.ts";

/** The names a mail may greet its recipient by, and whether the recipient has proven the address is theirs. */
export interface Recipient {
  readonly firstName: string;
  readonly lastName: string;
  /** False while the account is pending: whoever typed the names may not own the address. */
  readonly addressVerified: boolean;
}

/**
 * Mail that goes to an address nobody has proven yet (activation, set-up of an invitation). Anyone can register
 * someone else's address, so these mails carry no text that a stranger typed: no name, a neutral greeting.
 */
const TO_UNVERIFIED_ADDRESS: ReadonlySet<MailKind> = new Set(["activation", "password_setup"]);

/**
 * How each language greets a person by name. English, Spanish, Portuguese, Italian and French greet by the given
 * name; German uses the polite register, so the full name ("Guten Tag Ann Lee"); Chinese, Korean and Japanese
 * put the family name first and need both (Japanese 様 after a given name alone, or after an address, reads
 * wrong). The words around the name are in the catalogs (`mail.greeting`); the catalogs must share placeholders,
 * so the form of the name lives here.
 */
const NAME_FORM: Record<Language, "given" | "given family" | "family given"> = {
  en: "given",
  es: "given",
  pt: "given",
  it: "given",
  fr: "given",
  de: "given family",
  cn: "family given",
  kr: "family given",
  jp: "family given",
};

/**
 * A name fit for a greeting: letters and marks, spaces, apostrophes, hyphens, the middle dots of Catalan and
 * Japanese, and a full stop only after an initial. Nothing a mail client turns into a link (no "://", "@",
 * "www.", "evil.example", look-alike dots such as "evil․example", digits), and no control or direction
 * characters. A name that fails is not echoed: the greeting is neutral.
 */
const FIT_NAME = /^[\p{L}\p{M}' ’\-·・]+(\.(?= |$)[\p{L}\p{M}' ’\-·・]*)*$/u;

const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー・]+$/u;

/** Family name first, as CJK writes it: joined without a space when both are written in CJK characters. */
function joined(first: string, second: string): string {
  return CJK.test(first) && CJK.test(second) ? `${first}${second}` : `${first} ${second}`;
}

/** The name to greet the recipient by in this language, or undefined for the neutral greeting. */
export function greetingName(kind: MailKind, language: Language, recipient: Recipient): string | undefined {
  if (TO_UNVERIFIED_ADDRESS.has(kind) || !recipient.addressVerified) return undefined;
  const given = recipient.firstName.trim();
  const family = recipient.lastName.trim();
  const form = NAME_FORM[language];
  const needed = form === "given" ? [given] : [given, family];
  if (needed.some((part) => part === "" || !FIT_NAME.test(part))) return undefined;
  if (form === "given") return given;
  return form === "given family" ? `${given} ${family}` : joined(family, given);
}
