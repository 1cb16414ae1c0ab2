import { createHash } from "node:crypto";
import { emailRule, normalizeText } from "@gatehouse/contract";

/** How we compare e-mail addresses: trimmed, whitespace-collapsed, lower-cased (unique case-insensitively). */
export function normalizeEmail(email: string): string {
  return normalizeText(email).toLowerCase();
}

/**
 * The normalised address a typed sign-in identifier names, or undefined when it cannot be any account's address.
 * Accounts are identified by e-mail only (docs/decisions.md "Usernames") and every account was created through
 * the contract's address rule, so an identifier that fails that rule names no account and must not count
 * anywhere (no counter, no block): otherwise crafted identifiers could reach other counters' keys.
 */
export function accountAddress(typed: string): string | undefined {
  const parsed = emailRule.safeParse(typed);
  return parsed.success ? normalizeEmail(parsed.data) : undefined;
}

/** A stable hash of a normalised address: counters keyed by it hold no address in clear. */
export function addressKey(address: string): string {
  return createHash("sha256").update(normalizeEmail(address)).digest("hex");
}
