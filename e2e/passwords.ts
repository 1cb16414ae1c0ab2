/**
 * Every password the browser tests give an account or type into a form: the log scan (log-scan.ts) fails a run
 * whose service logs hold any of them (ASVS 16.2.5). A test with a new password adds it here.
 */
export const TEST_PASSWORDS = [
  "Granite-Kettle-58",
  "correct horse battery",
  "Copper-Lantern-91!",
  "Another-Kettle-77!",
  "Wrong-Password-1",
  "Granite-Kettle-58-and-a-long-tail",
  "not my password",
  "secret-value",
] as const;
