import { useEffect, useRef } from "react";

/**
 * WCAG 2.4.3 focus order: when a screen swaps its content in place (a new step, a form replaced by its result),
 * the element it was focused on is gone and focus falls back to the page. Put the returned ref on the screen's
 * heading, with tabIndex={-1}: whenever `state` changes after the first render, the heading takes focus, so a
 * keyboard or screen-reader user hears where they are and tabs on from there.
 */
export function useFocusOnChange<T extends HTMLElement = HTMLHeadingElement>(state: unknown) {
  const ref = useRef<T>(null);
  const shown = useRef(state);
  useEffect(() => {
    if (Object.is(shown.current, state)) return;
    shown.current = state;
    ref.current?.focus();
  }, [state]);
  return ref;
}
