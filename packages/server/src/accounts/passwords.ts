import { randomBytes } from "node:crypto";
import { hash, type Options, verify } from "@node-rs/argon2";

/** OWASP password storage cheat sheet: argon2id, m=19 MiB, t=2, p=1 (ASVS 11.4.2). */
export const ARGON2_PARAMS: Options = {
  // Algorithm.Argon2id; the const enum cannot be read under verbatimModuleSyntax.
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/** Hashes on libuv's thread pool, so sign-ins use every core and never block the event loop. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_PARAMS);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
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
