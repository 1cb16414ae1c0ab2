import { useCallback, useEffect, useRef, useState } from "react";
import { errorKey, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";

/** One page of a security list as the gateway answers it: its entries and the cursor of the next (null: last). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PagedList<T> {
  /** The entries so far; undefined until the first page came. */
  items: T[] | undefined;
  /** A next page exists ("Show more"). */
  more: boolean;
  busy: boolean;
  /** The message key of a failed load the list shows (5xx and network failures go to the retry screen). */
  error: string | undefined;
  /** Loads the first page again (after an entry was ended or removed). */
  reload: () => void;
  /** Loads the next page with the cursor; resolves with how many entries were there before it. */
  showMore: () => Promise<number>;
}

/**
 * A list of the security page (issue #27): newest first, paged with the gateway's opaque cursor. The first page
 * loads on mount and again after the retry screen (React's Activity re-runs effects until an answer came).
 */
export function usePagedList<T>(load: (cursor: string | undefined) => Promise<Page<T>>): PagedList<T> {
  const fail = useScreenFailure();
  const [items, setItems] = useState<T[]>();
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const loadRef = useRef(load);
  loadRef.current = load;

  const failed = useCallback(
    (failure: unknown) => (isScreenFailure(failure) ? fail(failure) : setError(errorKey(failure))),
    [fail],
  );

  const reload = useCallback(() => {
    setError(undefined);
    loadRef.current(undefined).then((page) => {
      setItems(page.items);
      setNext(page.nextCursor);
    }, failed);
  }, [failed]);

  useEffect(() => {
    if (!items) reload();
  }, [items, reload]);

  const showMore = async () => {
    const before = items?.length ?? 0;
    if (!next) return before;
    setBusy(true);
    setError(undefined);
    try {
      const page = await loadRef.current(next);
      setItems((shown) => [...(shown ?? []), ...page.items]);
      setNext(page.nextCursor);
    } catch (failure) {
      failed(failure);
    } finally {
      setBusy(false);
    }
    return before;
  };

  return { items, more: next !== null, busy, error, reload, showMore };
}
