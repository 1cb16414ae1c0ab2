import { MAIL_RETRY } from "@gatehouse/contract";

/**
 * The retry delay of both durable queues (the mail outbox and the jobs table): doubling from `firstDelayMs`, capped
 * at an hour. Mail takes it from MAIL_RETRY; the jobs worker's tests shorten the first delay.
 */
export function backOff(attempts: number, firstDelayMs: number): number {
  return Math.min(firstDelayMs * 2 ** Math.max(0, attempts - 1), MAIL_RETRY.maxDelayMs);
}
