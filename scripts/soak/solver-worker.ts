/** A thread of the soak's proof-of-work pool (solver.ts): solves each challenge it is sent, one at a time. */
import { parentPort } from "node:worker_threads";
import { type Challenge, solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";

parentPort?.on("message", async (challenge: Challenge) => {
  try {
    parentPort?.postMessage({ solution: await solveChallenge({ challenge, deriveKey }) });
  } catch (error) {
    parentPort?.postMessage({ error: String(error) });
  }
});
