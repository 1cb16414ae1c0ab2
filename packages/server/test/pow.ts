import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import type { Client } from "./harness.ts";

/** Solves the gateway's proof-of-work challenge the way the widget does, and returns the token to send. */
export async function solveBotCheck(client: Client): Promise<string> {
  const challenge = (await client.get("/api/captcha/challenge")).json;
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error("could not solve the challenge");
  return Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
}
