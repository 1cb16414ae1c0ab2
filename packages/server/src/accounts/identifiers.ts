import { createHash } from "node:crypto";
import { normalizeText } from "@gatehouse/contract";

/** How we compare e-mail addresses: trimmed, whitespace-collapsed, lower-cased (unique case-insensitively). */
export function normalizeEmail(email: string): string {
  return normalizeText(email).toLowerCase();
}

/** A stable hash of a normalised identifier: rows keyed by it hold no address in clear. */
export function identifierKey(identifier: string): string {
  return createHash("sha256")
    .update(`login:${normalizeEmail(identifier)}`)
    .digest("hex");
}
