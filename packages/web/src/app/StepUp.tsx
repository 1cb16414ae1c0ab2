import { type ComponentType, useEffect, useRef, useState } from "react";
import { setStepUpAsker } from "../api/index.ts";
import { loadLaterStrings } from "../i18n/index.ts";
import type { StepUpDialogProps } from "../screens/step-up/StepUpDialog.tsx";

/**
 * Issue #26 step-up, in the app's frame: registers the gateway client's way of asking for a fresh proof, and shows
 * the "Confirm it's you" dialog while one is asked. The dialog and its words load only when a call needs them,
 * so the sign-in route carries a few lines of this and nothing more.
 */
export function StepUpHost() {
  const [ask, setAsk] = useState<{ resolve: (confirmed: boolean) => void }>();
  const [Dialog, setDialog] = useState<ComponentType<StepUpDialogProps>>();
  // The control the person last used: the button that started the change is often disabled (busy) by the time
  // the dialog opens, so document.activeElement no longer names it. Focus goes back there (WCAG 2.4.3).
  const lastFocused = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const remember = (event: FocusEvent) => {
      if (event.target instanceof HTMLElement && !event.target.closest("dialog")) lastFocused.current = event.target;
    };
    document.addEventListener("focusin", remember);
    return () => document.removeEventListener("focusin", remember);
  }, []);

  useEffect(() => {
    setStepUpAsker(
      () =>
        new Promise<boolean>((resolve) => {
          Promise.all([import("../screens/step-up/StepUpDialog.tsx"), loadLaterStrings()]).then(
            ([module]) => {
              setDialog(() => module.StepUpDialog);
              setAsk({ resolve });
            },
            // Without its dialog the proof cannot be asked: the call's 403 reaches its screen as it came.
            () => resolve(false),
          );
        }),
    );
    return () => setStepUpAsker(undefined);
  }, []);

  if (!ask || !Dialog) return null;
  return (
    <Dialog
      returnFocus={lastFocused.current}
      onDone={(confirmed) => {
        setAsk(undefined);
        ask.resolve(confirmed);
      }}
    />
  );
}
