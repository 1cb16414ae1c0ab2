import { hash } from "node:crypto";
import { BOT_CHECK_TTL_MS } from "@gatehouse/contract";
import { captchasStore } from "../store/captchas.ts";
import type { Db } from "../store/db.ts";
import { checkCaptcha } from "./image.ts";
import type { ProofOfWork } from "./proof-of-work.ts";

export type HumanCheckFailure = "captcha_incorrect" | "bot_check_failed";

export interface HumanProof {
  country: string;
  captchaGUID?: string | undefined;
  captchaAnswer?: string | undefined;
  botCheck?: string | undefined;
}

/** A bot check by a third party (Turnstile, reCAPTCHA): their verify call with our secret. */
export interface RemoteBotCheck {
  verify(token: string | undefined, ip: string): Promise<boolean>;
}

/**
 * Spec §2: visitors located in CN answer the image captcha; everyone else passes the bot check (our proof of
 * work by default, or the configured provider). Both are single-use.
 */
export async function checkHuman(
  db: Db,
  proof: HumanProof,
  checks: { proofOfWork: ProofOfWork; remote: RemoteBotCheck | undefined },
  ip: string,
): Promise<HumanCheckFailure | undefined> {
  if (proof.country === "CN") {
    return (await checkCaptcha(db, proof.captchaGUID, proof.captchaAnswer)) ? undefined : "captcha_incorrect";
  }
  if (!checks.remote) return (await checks.proofOfWork.verify(db, proof.botCheck)) ? undefined : "bot_check_failed";
  if (!(await checks.remote.verify(proof.botCheck, ip))) return "bot_check_failed";
  // The provider spends its tokens too; we keep our own record so a replay fails even if it does not.
  const spent = await captchasStore.spend(
    db,
    hash("sha256", `remote:${proof.botCheck}`, "hex"),
    Date.now() + BOT_CHECK_TTL_MS,
  );
  return spent ? undefined : "bot_check_failed";
}

/** Turnstile and reCAPTCHA share the siteverify protocol: POST secret, response and remoteip; read `success`. */
export function siteverify(url: string, secret: string): RemoteBotCheck {
  return {
    async verify(token, ip) {
      if (!token) return false;
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ secret, response: token, remoteip: ip }),
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await response.json()) as { success?: unknown };
        return response.ok && body.success === true;
      } catch {
        return false;
      }
    },
  };
}
