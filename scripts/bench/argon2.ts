import { availableParallelism } from "node:os";
import { hash } from "@node-rs/argon2";
import { ARGON2_PARAMS } from "../../packages/server/src/accounts/passwords.ts";

const SAMPLES = 15;

export interface HashingFigures {
  /** Median time of one argon2id hash with the sign-in parameters, alone. */
  hashMs: number;
  /** cores ÷ hash time: what perfect scaling would give. */
  limit: number;
  /** Hashes/s with every core busy: argon2id is memory-hard, so it need not scale linearly. */
  parallelRate: number;
}

/** Argon2id on this machine, with the parameters sign-in uses (the denominator of the sign-in target). */
export async function measureHashing(password: string): Promise<HashingFigures> {
  const cores = availableParallelism();
  await hash("warm up", ARGON2_PARAMS);
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await hash(`${password}${i}`, ARGON2_PARAMS);
    times.push(performance.now() - t);
  }
  const hashMs = times.sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
  return { hashMs, limit: (cores * 1000) / hashMs, parallelRate: await measureParallelHashing(password) };
}

/** Hashes/s with one argon2id hash running per core. */
export async function measureParallelHashing(password: string): Promise<number> {
  const cores = availableParallelism();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: cores }, async (_, c) => {
      for (let i = 0; i < SAMPLES; i++) await hash(`${password}${c}:${i}`, ARGON2_PARAMS);
    }),
  );
  return (cores * SAMPLES * 1000) / (performance.now() - start);
}
