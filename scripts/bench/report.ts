/** One line of the bench's table: a figure, and, for a target of issue #9, the target and whether it is met. */
export interface Row {
  label: string;
  value: string;
  target?: { text: string; met: boolean };
}

const LABEL_WIDTH = 52;
const VALUE_WIDTH = 34;

export function printReport(title: string, rows: Row[]): void {
  console.log(`\n${title}\n`);
  for (const row of rows) {
    const target = row.target ? `target ${row.target.text}: ${row.target.met ? "met" : "NOT met"}` : "";
    console.log(`${row.label.padEnd(LABEL_WIDTH)} ${row.value.padEnd(VALUE_WIDTH)} ${target}`.trimEnd());
  }
  const missed = rows.filter((row) => row.target && !row.target.met).length;
  const targets = rows.filter((row) => row.target).length;
  console.log(`\n${targets - missed} of ${targets} targets met.`);
}

export const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
