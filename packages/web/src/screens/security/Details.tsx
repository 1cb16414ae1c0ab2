import { Fragment } from "react";
import styles from "./Security.module.css";

/**
 * A line of an entry's details ("With a password · Germany"): the parts known, separated by a middle dot. A line
 * that wraps does so between parts, so no part is cut in two ("Last active · now") on a phone or in Japanese.
 */
export function Details({ parts }: { parts: readonly (string | undefined)[] }) {
  const shown = parts.filter((part): part is string => Boolean(part));
  if (shown.length === 0) return null;
  return (
    <span className={styles.details}>
      {shown.map((part, index) => (
        <Fragment key={part}>
          {index > 0 ? " · " : null}
          <span className={styles.part}>{part}</span>
        </Fragment>
      ))}
    </span>
  );
}
