/**
 * Issue #26 step-up, as the gateway client sees it: a call answered 403 reauthentication_required asks the person
 * for a fresh proof through whatever the app registered (its "Confirm it's you" dialog), then goes once more.
 * Calls that hit it together share one question, so two stale calls open one dialog.
 */
type Asker = () => Promise<boolean>;

let asker: Asker | undefined;
let pending: Promise<boolean> | undefined;

/** The app's way of asking (app/StepUp.tsx registers it while mounted); undefined unregisters. */
export function setStepUpAsker(next: Asker | undefined): void {
  asker = next;
}

/** Resolves true once a fresh proof was given; false when cancelled or nothing can ask. */
export function stepUp(): Promise<boolean> {
  if (!asker) return Promise.resolve(false);
  pending ??= asker().finally(() => {
    pending = undefined;
  });
  return pending;
}
