import { useId } from "react";
import styles from "./Spinner.module.css";

/**
 * A loading state: a turning ring beside its text, announced politely (role=status, named by the text). `page`
 * holds the room of a screen's content, so the card does not shrink to a line and jump when the content comes;
 * `overlay` floats over the current screen (a route loading), so nothing under it moves at all.
 */
export function Spinner({ label, layout = "page" }: { label: string; layout?: "page" | "overlay" | "inline" }) {
  // A status region takes no name from its content: the text names it, so assistive technology can tell it apart.
  const labelId = useId();
  return (
    <div role="status" aria-labelledby={labelId} className={`${styles.spinner} ${styles[layout]}`}>
      <SpinnerRing />
      <span id={labelId}>{label}</span>
    </div>
  );
}

/** The ring alone, for a control that already says what it waits for (a busy button's label). */
export function SpinnerRing() {
  return <span className={styles.ring} aria-hidden="true" />;
}
