import { hash, randomUUID } from "node:crypto";
import { CAPTCHA_TTL_MS } from "@gatehouse/contract";
import { captchasStore } from "../store/captchas.ts";
import type { Db } from "../store/db.ts";

const answerHash = (answer: string) => hash("sha256", `captcha:${answer.trim()}`, "hex");

/** Answers of the last captchas, kept only under NODE_ENV=test so browser tests can solve them (issue #3). */
export const testAnswers = new Map<string, string>();

let loaded: Promise<typeof import("svg-captcha")> | undefined;

/**
 * svg-captcha parses its font when loaded: several megabytes of resident memory that only CN visitors' registrations
 * need, so it is loaded at the first image captcha, not at start (issue #9: idle memory).
 */
function drawer() {
  loaded ??= import("svg-captcha").then((module) => module.default);
  return loaded;
}

/**
 * A server-drawn image of 5 digits (spec: "the numbers shown in an image"), as an SVG data URL. Its answer is
 * stored hashed, expires after ten minutes and is spent by the first attempt, right or wrong.
 */
export async function generateCaptcha(db: Db, options: { keepAnswerForTests: boolean }, now = Date.now()) {
  const captcha = (await drawer()).create({
    size: 5,
    charPreset: "0123456789",
    noise: 3,
    color: false,
    width: 180,
    height: 60,
  });
  const id = randomUUID();
  await captchasStore.insert(db, id, answerHash(captcha.text), now + CAPTCHA_TTL_MS);
  if (options.keepAnswerForTests) {
    testAnswers.set(id, captcha.text);
    if (testAnswers.size > 1000) testAnswers.clear();
  }
  return { id, image: `data:image/svg+xml;base64,${Buffer.from(captcha.data).toString("base64")}` };
}

export async function checkCaptcha(
  db: Db,
  id: string | undefined,
  answer: string | undefined,
  now = Date.now(),
): Promise<boolean> {
  if (!id || !answer) return false;
  const stored = await captchasStore.take(db, id);
  return stored !== undefined && stored.expires_at > now && stored.answer_hash === answerHash(answer);
}
