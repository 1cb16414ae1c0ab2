import zxcvbnCommon from "@zxcvbn-ts/language-common";

/**
 * The 10,000 most common passwords (ASVS 6.2.4/2.1.7), from the frequency-ranked password list that
 * `@zxcvbn-ts/language-common` ships (docs/decisions.md names its sources). Built once, compared lower-cased.
 */
const COMMON: ReadonlySet<string> = new Set(
  (zxcvbnCommon.dictionary["passwords-common"] as string[]).slice(0, 10_000).map((p) => p.toLowerCase()),
);

export function isCommonPassword(password: string): boolean {
  return COMMON.has(password.toLowerCase());
}
