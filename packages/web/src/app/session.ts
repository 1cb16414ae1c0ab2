import { type AnswerOf, api } from "@gatehouse/contract";
import { useSyncExternalStore } from "react";
import { gateway } from "../api/index.ts";

export type Session = NonNullable<AnswerOf<typeof api.session>>;

/**
 * What the app knows of the session: still asking, the answer (null for a visitor), or the call's failure (5xx,
 * network: the retry screen). `seq` numbers the calls, so a screen can wait for an answer newer than its arrival.
 */
export type SessionState =
  | { seq: number; status: "pending" }
  | { seq: number; status: "ready"; session: Session | null }
  | { seq: number; status: "failed"; error: unknown };

let state: SessionState = { seq: 0, status: "pending" };
let answer: Promise<Session | null> | undefined;
const listeners = new Set<() => void>();

function publish(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener();
}

/**
 * Asks the gateway for the session (again) and returns the call's number. main.tsx starts the first call before
 * React renders, so the first screen never waits for it (issue #9); later calls follow navigations and a page
 * restored from the back/forward cache. Only the newest call's answer counts.
 */
export function refreshSession(): number {
  const seq = state.seq + 1;
  publish({ seq, status: "pending" });
  const call = gateway().call(api.session);
  answer = call;
  call.then(
    (session) => {
      if (state.seq === seq) publish({ seq, status: "ready", session });
    },
    (error: unknown) => {
      if (state.seq === seq) publish({ seq, status: "failed", error });
    },
  );
  return seq;
}

/** The newest call's answer; a failure rejects (the shell shows the retry screen for it). */
export function sessionAnswer(): Promise<Session | null> {
  if (!answer) refreshSession();
  return answer as Promise<Session | null>;
}

export function currentSession(): SessionState {
  return state;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSession(): SessionState {
  return useSyncExternalStore(subscribe, currentSession);
}
