/**
 * A fake clock for a Gatehouse process under test, loaded with `--import` (see `startServiceWithClock`): the
 * process's `Date` runs `offset` milliseconds ahead of the real one, and the offset is read from FAKE_CLOCK_FILE
 * whenever the process receives SIGUSR2. Only the wall clock moves: timers and the event loop run as usual, so a
 * test can jump a day ahead (an expired mailed link) without waiting or touching the server's code.
 */
import { readFileSync, writeFileSync } from "node:fs";

const file = process.env.FAKE_CLOCK_FILE;
if (!file) throw new Error("fake-clock: FAKE_CLOCK_FILE is not set");

const RealDate = Date;
const realNow = RealDate.now.bind(RealDate);
let offset = 0;

class ShiftedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(realNow() + offset);
    else super(...(args as [string | number | Date]));
  }

  static override now(): number {
    return realNow() + offset;
  }
}

globalThis.Date = ShiftedDate as DateConstructor;
process.on("SIGUSR2", () => {
  offset = Number(readFileSync(file, "utf8")) || 0;
  // Told back, so the test waits for this rather than for a guessed while (clock.ts).
  writeFileSync(`${file}.seen`, String(offset));
});
