import { hash } from "node:crypto";
import { BOT_CHECK_TTL_MS } from "@gatehouse/contract";
import { type Challenge, createChallenge, randomInt, type Solution, verifySolution } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import { captchasStore } from "../store/captchas.ts";
import type { Db } from "../store/db.ts";

/**
 * Self-hosted proof of work (ALTCHA v2) for visitors outside CN: the browser spends a moment of CPU finding the
 * counter behind the challenge, which costs a bot at scale and a person nothing. Challenges are signed with keys
 * derived from SESSION_SECRET, expire after five minutes, and a solved one is accepted once.
 */
export interface ProofOfWork {
  challenge(): Promise<Challenge>;
  verify(db: Db, token: string | undefined): Promise<boolean>;
}

export function proofOfWork(
  secret: string,
  difficulty: { min: number; max: number } = { min: 5_000, max: 50_000 },
): ProofOfWork {
  const signature = hash("sha256", `altcha-signature:${secret}`, "hex");
  const keySignature = hash("sha256", `altcha-key:${secret}`, "hex");
  return {
    challenge: () =>
      createChallenge({
        algorithm: "SHA-256",
        cost: 1,
        counter: randomInt(difficulty.min, difficulty.max),
        deriveKey,
        expiresAt: new Date(Date.now() + BOT_CHECK_TTL_MS),
        hmacSignatureSecret: signature,
        hmacKeySignatureSecret: keySignature,
      }),
    async verify(db, token) {
      if (!token) return false;
      let payload: { challenge?: Challenge; solution?: Solution };
      try {
        payload = JSON.parse(Buffer.from(token, "base64").toString("utf8"));
      } catch {
        return false;
      }
      if (!payload.challenge?.parameters || !payload.solution) return false;
      let verified = false;
      try {
        const result = await verifySolution({
          challenge: payload.challenge,
          solution: payload.solution,
          deriveKey,
          hmacSignatureSecret: signature,
          hmacKeySignatureSecret: keySignature,
        });
        verified = result.verified;
      } catch {
        return false;
      }
      if (!verified) return false;
      // One use per challenge (ASVS: no replay of a solved check).
      const spent = hash("sha256", `${payload.challenge.parameters.nonce}:${payload.challenge.parameters.salt}`, "hex");
      return captchasStore.spend(db, spent, Date.now() + BOT_CHECK_TTL_MS);
    },
  };
}
