import { type ReactNode, type Ref, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { Spinner } from "../../ui/Spinner.tsx";
import { useT } from "../../ui/useT.ts";
import type { PagedList } from "./paged.ts";
import styles from "./Security.module.css";

/**
 * One section of the security page: its heading, what the section's owner puts above the list (a message), the
 * list (or its empty text), "Show more" while the gateway has a next page, and what goes below (a button).
 * After "Show more" the first new entry takes the focus (WCAG 2.4.3), so a keyboard user reads on from there.
 */
export function PagedSection<T>({
  heading,
  list,
  empty,
  keyOf,
  render,
  above,
  below,
  headingRef,
}: {
  heading: string;
  list: PagedList<T>;
  empty: string;
  keyOf: (item: T, index: number) => string;
  render: (item: T) => ReactNode;
  above?: ReactNode;
  below?: ReactNode;
  /** The heading takes the focus through it when an entry the person acted on leaves the list (WCAG 2.4.3). */
  headingRef?: Ref<HTMLHeadingElement>;
}) {
  const { t } = useTranslation();
  const tk = useT();
  const headingId = useId();
  const listRef = useRef<HTMLUListElement>(null);
  // The entry to focus once the next page is drawn (the answer comes before React draws it).
  const [focusAt, setFocusAt] = useState<number>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs again once the new entries are drawn.
  useEffect(() => {
    if (focusAt === undefined) return;
    const first = listRef.current?.children[focusAt];
    if (!(first instanceof HTMLElement)) return;
    first.focus();
    setFocusAt(undefined);
  }, [focusAt, list.items]);

  const showMore = async () => setFocusAt(await list.showMore());

  return (
    <section className={styles.section} aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} tabIndex={headingRef ? -1 : undefined}>
        {heading}
      </h2>
      {above}
      {list.error ? <Alert kind="error">{tk(list.error)}</Alert> : null}
      {list.items === undefined ? (
        list.error ? null : (
          <Spinner label={t("securityPage.loading")} layout="inline" />
        )
      ) : list.items.length === 0 ? (
        <p>{empty}</p>
      ) : (
        <ul ref={listRef} className={styles.list} aria-labelledby={headingId}>
          {list.items.map((item, index) => (
            <li key={keyOf(item, index)} className={styles.item} tabIndex={-1}>
              {render(item)}
            </li>
          ))}
        </ul>
      )}
      {list.more ? (
        <div className={styles.actions}>
          <Button variant="secondary" busy={list.busy} onClick={() => void showMore()}>
            {t("securityPage.showMore")}
          </Button>
        </div>
      ) : null}
      {below}
    </section>
  );
}
