import { useEffect, useRef } from "react";

/**
 * WCAG 2.4.3 focus order: when a screen swaps its content in place (a new step, a form replaced by its result),
 * the element it was focused on is gone and focus falls back to the page. Put the returned ref on the screen's
 * heading, with tabIndex={-1}: whenever `state` changes after the first render, the heading takes focus, so a
 * keyboard or screen-reader user hears where they are and tabs on from there.
 */
export function useFocusOnChange(state: unknown) {
  const ref = useRef<HTMLHeadingElement>(null);
  const shown = useRef(state);
  useEffect(() => {
    if (Object.is(shown.current, state)) return;
    shown.current = state;
    ref.current?.focus();
  }, [state]);
  return ref;
}

/** The same, for a screen that itself replaces the one the user just acted on: its heading takes focus on mount. */
export function useFocusOnMount(when: boolean) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (when) ref.current?.focus();
  }, [when]);
  return ref;
}
