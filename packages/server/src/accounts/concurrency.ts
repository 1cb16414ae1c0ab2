/**
 * Runs at most `slots` of the given tasks at once; the others wait their turn in arrival order. A task's failure
 * is its caller's, and frees its slot like a success.
 */
export function concurrencyLimit(slots: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < slots) running += 1;
    else await new Promise<void>((turn) => waiting.push(turn));
    try {
      return await task();
    } finally {
      release();
    }
  };
}
