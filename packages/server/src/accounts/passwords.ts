import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { hash, type Options, verify } from "@node-rs/argon2";
import { concurrencyLimit } from "./concurrency.ts";

/** OWASP password storage cheat sheet: argon2id, m=19 MiB, t=2, p=1 (ASVS 11.4.2). */
export const ARGON2_PARAMS: Options = {
  // Algorithm.Argon2id; the const enum cannot be read under verbatimModuleSyntax.
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/**
 * Argon2id runs on libuv's thread pool (napi async work), four threads by default whatever the machine. More hashes
 * at once than cores only share the cores, each holding its 19 MiB, and fill the pool that file reads and DNS
 * lookups also wait on: at most one hash per core runs, the others queue here (issue #9: sign-in throughput and
 * memory under load).
 */
const argon2Slots = concurrencyLimit(availableParallelism());

/**
 * The form a password is hashed and compared in: Unicode NFKC (NIST SP 800-63B §3.1.1.2 asks for NFKC or NFKD
 * before hashing), so "é" typed precomposed or as e + accent, or a full-width letter from an IME, is the same
 * password. Nothing else changes: no trimming, no case folding (docs/decisions.md "Passwords are taken as typed").
 */
export function normalizePassword(password: string): string {
  return password.normalize("NFKC");
}

/** Hashes on libuv's thread pool, so sign-ins use every core and never block the event loop. */
export function hashPassword(password: string): Promise<string> {
  return argon2Slots(() => hash(normalizePassword(password), ARGON2_PARAMS));
}

async function verifyExactly(stored: string, password: string): Promise<boolean> {
  try {
    return await argon2Slots(() => verify(stored, password));
  } catch {
    return false;
  }
}

/** A verified password, and whether its stored hash should be replaced with one made today. */
export type PasswordCheck = { matches: false } | { matches: true; rehash: boolean };

/**
 * Verifies the normalised form. Hashes stored before passwords were normalised hold the string exactly as it was
 * typed, so when the normalised form fails and differs from what was typed, the typed form is tried too; such a
 * match asks for a rehash, which moves the account to the normalised form at its next sign-in.
 */
export async function checkPassword(stored: string, password: string): Promise<PasswordCheck> {
  const normalized = normalizePassword(password);
  if (await verifyExactly(stored, normalized)) return { matches: true, rehash: needsRehash(stored) };
  if (normalized !== password && (await verifyExactly(stored, password))) return { matches: true, rehash: true };
  return { matches: false };
}

/** True when the password matches the stored hash (normalised, or as typed for hashes made before that). */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  return (await checkPassword(stored, password)).matches;
}

/** True when a stored hash was made with other parameters than today's: rehash it at the next sign-in. */
export function needsRehash(stored: string): boolean {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/u.exec(stored);
  if (!match) return true;
  const [, m, t, p] = match.map(Number);
  return m !== ARGON2_PARAMS.memoryCost || t !== ARGON2_PARAMS.timeCost || p !== ARGON2_PARAMS.parallelism;
}

let dummy: Promise<string> | undefined;

/**
 * A hash of a random secret made with today's parameters. Unknown addresses are verified against it, so a
 * wrong address costs as much time as a wrong password (ASVS 6.3.8 / OWASP authentication cheat sheet).
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  return dummy;
}
