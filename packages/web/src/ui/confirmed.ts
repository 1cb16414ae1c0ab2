import { useState } from "react";
import { errorKey, isScreenFailure } from "../api/index.ts";
import { useScreenFailure } from "../app/failure.tsx";

/**
 * The confirm-then-call pattern of the account's destructive buttons (remove a passkey, turn off the authenticator
 * app, end a sign-in, remove an app's access): the browser's confirmation first, then the call, busy meanwhile. A
 * failure the shell shows (5xx, network) goes to the retry screen; any other comes back as its message key.
 */
export function useConfirmedCall(): {
  busy: boolean;
  /** Asks `question` (none: no confirmation, for a call that only defends), then makes the call. */
  run: (question: string | undefined, call: () => Promise<void>, onError: (key: string) => void) => Promise<void>;
} {
  const fail = useScreenFailure();
  const [busy, setBusy] = useState(false);
  const run = async (question: string | undefined, call: () => Promise<void>, onError: (key: string) => void) => {
    if (question !== undefined && !window.confirm(question)) return;
    setBusy(true);
    try {
      await call();
    } catch (failure) {
      if (isScreenFailure(failure)) fail(failure);
      else onError(errorKey(failure));
    } finally {
      setBusy(false);
    }
  };
  return { busy, run };
}
