import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../packages/server/src/store/db.ts";
import { TEST_PASSWORDS } from "./passwords.ts";

/**
 * The log scan of a browser run (issue #14): every service the run started logs into its own folder of the run;
 * at the end, every line of every log is checked against the secrets the run really handed out (the codes of every
 * mail, the test passwords, each service's configured secrets) and against the shapes of secrets (JWTs, code and
 * token parameters, cookie and Authorization values, client secrets), and the structured log must stay JSON lines
 * with the request id on request lines and the error `guid` on error lines (ASVS 16.2.1, 16.2.5).
 */

/** A secret the scan looks for, and what it is (named in a finding; the value itself never is). */
export interface Secret {
  kind: string;
  value: string;
}

/** What the scan needs to know of one service, written beside its logs when it starts. */
export interface ServiceRecord {
  label: string;
  databaseUrl: string;
  secrets: Secret[];
}

export const RECORD_FILE = "service.json";
export const STDOUT_FILE = "stdout.log";
export const STDERR_FILE = "stderr.log";
/** Where the run's test SMTP servers keep what they received (run.ts): those mails' codes were handed out too. */
export const MAIL_FOLDER = "mail";
/** Separates two mails in one of those files. */
export const MAIL_SEPARATOR = "\n\u0000\n";

/** The mask the server's log puts in place of a secret (packages/server/src/http/log.ts). */
const MASK = "REDACTED";
/** Shorter values are too likely to occur by chance (a port, a word) to be told from a leak. */
const MIN_SECRET_LENGTH = 8;

export function writeServiceRecord(dir: string, record: ServiceRecord): void {
  writeFileSync(join(dir, RECORD_FILE), JSON.stringify(record), { mode: 0o600 });
}

/** The codes of a stopped service's outbox, read when it stops (its database may be gone by the scan). */
const OUTBOX_CODES_FILE = "outbox-codes.json";

/**
 * Reads a service's outbox as it stops, while its database is surely there: a test that brings its own database
 * (a PostgreSQL it stops and starts, e2e/database-outage.e2e.ts) removes it before the run's scan.
 */
export async function keepOutboxCodes(dir: string, databaseUrl: string): Promise<void> {
  writeFileSync(join(dir, OUTBOX_CODES_FILE), JSON.stringify(await outboxCodes(databaseUrl)), { mode: 0o600 });
}

/**
 * The secrets a service is configured with: environment values named as secrets (SESSION_SECRET,
 * DISCOURSE_SECRET, DISCOURSE_API_KEY, METRICS_TOKEN, …), SMTP_URL's password, and every `client_secret` of
 * its CLIENTS_FILE and IDPS_FILE (read now: a test may remove its file before the run ends).
 */
export function configuredSecrets(env: Record<string, string | undefined>): Secret[] {
  const secrets: Secret[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (value && /SECRET|_KEY$|TOKEN|PASSWORD/u.test(key)) secrets.push({ kind: key, value });
  }
  for (const key of ["SMTP_URL", "DATABASE_URL"]) {
    const url = env[key];
    const password = url && URL.canParse(url) ? decodeURIComponent(new URL(url).password) : "";
    if (password) secrets.push({ kind: `${key} password`, value: password });
  }
  for (const key of ["CLIENTS_FILE", "IDPS_FILE"]) {
    const file = env[key];
    if (!file || !existsSync(file)) continue;
    for (const value of valuesOfKey(JSON.parse(readFileSync(file, "utf8")), "client_secret")) {
      secrets.push({ kind: `client_secret of ${key}`, value });
    }
  }
  return secrets.filter((secret) => secret.value.length >= MIN_SECRET_LENGTH);
}

function valuesOfKey(value: unknown, key: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => valuesOfKey(item, key));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === key && typeof v === "string" ? [v] : valuesOfKey(v, key)));
}

/**
 * The codes a mail hands out: the `code` parameter of each of its links, and any long random path segment (a
 * code carried in the path). Links in HTML bodies are read as in the text ones (`&amp;` undone).
 */
export function codesInMail(text: string): string[] {
  const codes = new Set<string>();
  for (const [link] of text.replaceAll("&amp;", "&").matchAll(/https?:\/\/[^\s"'<>]+/gu)) {
    if (!URL.canParse(link)) continue;
    const url = new URL(link);
    for (const code of url.searchParams.getAll("code")) codes.add(code);
    for (const segment of url.pathname.split("/")) if (/^[\w-]{32,}$/u.test(segment)) codes.add(segment);
  }
  return [...codes].filter((code) => code.length >= MIN_SECRET_LENGTH);
}

/** Parameters whose value is a secret wherever they appear: in a URL, a form body or a message. */
const SECRET_PARAM =
  /(?<![\w-])(access_token|refresh_token|id_token|id_token_hint|logout_token|token|code|client_secret|request)=([^&\s"'#;,\\]*)/gu;
const JWT = /eyJ[\w-]{4,}\.eyJ[\w-]{4,}\.[\w-]*/gu;
const AUTHORIZATION = /\b(?:Bearer|Basic|DPoP)\s+([\w.~+/=-]{8,})/giu;
/** Our cookies (gh_session, gh_device, gh_link_state, gatehouse_…) and the provider's (_session, _interaction…). */
const COOKIE =
  /(?<![\w-])((?:__Host-)?(?:gh_[a-z_]+|gatehouse_[a-z_]+|_session(?:\.legacy)?(?:\.sig)?|_interaction(?:_resume)?(?:\.sig)?))=([^;\s"&,\\]{8,})/gu;
/** JSON fields that hold a secret whatever their value looks like (a header or a body logged whole). */
const SECRET_FIELD =
  /^(cookie|set-cookie|authorization|proxy-authorization|x-csrf-token|password|newpassword|new_password|currentpassword|current_password|oldpassword|client_secret|access_token|refresh_token|id_token|session_secret)$/iu;

/** Undoes percent-encoding twice, so a secret inside an encoded return address (`%26code%3D…`) shows as one. */
function decoded(line: string): string {
  let text = line;
  for (let i = 0; i < 2; i++)
    text = text.replace(/%([0-9A-Fa-f]{2})/gu, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return text;
}

/** A problem found on one line: what it is, and the line with every secret on it masked. */
export interface LineProblem {
  problem: string;
  shown: string;
}

/**
 * Checks one log line. `structured`: a line of the service's standard output, which must be a pino JSON line
 * (its standard error holds what Node itself writes, checked for secrets only).
 */
export function checkLine(line: string, secrets: readonly Secret[], structured: boolean): LineProblem[] {
  const problems: string[] = [];
  const hidden: string[] = [];
  for (const secret of secrets) {
    if (line.includes(secret.value)) {
      problems.push(`holds a ${secret.kind}`);
      hidden.push(secret.value);
    }
  }
  for (const text of new Set([line, decoded(line)])) {
    for (const [, name, value] of text.matchAll(SECRET_PARAM)) {
      if (value && value !== MASK && value.length >= 4) {
        problems.push(`holds a value of ${name}=`);
        hidden.push(value as string);
      }
    }
    for (const [jwt] of text.matchAll(JWT)) {
      problems.push("holds a JWT");
      hidden.push(jwt);
    }
    for (const [, value] of text.matchAll(AUTHORIZATION)) {
      problems.push("holds an Authorization value");
      hidden.push(value as string);
    }
    for (const [, name, value] of text.matchAll(COOKIE)) {
      if (value !== MASK) {
        problems.push(`holds the cookie ${name}`);
        hidden.push(value as string);
      }
    }
  }
  if (structured) {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      problems.push("is not a JSON line");
    }
    if (typeof entry === "object" && entry !== null) {
      const fields = entry as Record<string, unknown>;
      if (("req" in fields || "res" in fields) && typeof fields.reqId !== "string") {
        problems.push("is a request line without reqId");
      }
      if (typeof fields.level === "number" && fields.level >= 50 && typeof fields.guid !== "string") {
        problems.push("is an error line without guid");
      }
      for (const [name, value] of secretFields(fields)) {
        problems.push(`holds a "${name}" field`);
        hidden.push(value);
      }
    } else if (entry !== undefined) {
      problems.push("is not a JSON object");
    }
  }
  if (problems.length === 0) return [];
  return [...new Set(problems)].map((problem) => ({ problem, shown: mask(line, hidden) }));
}

function secretFields(value: unknown, name = ""): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((item) => secretFields(item, name));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, v]) => secretFields(v, key));
  }
  if (SECRET_FIELD.test(name) && typeof value === "string" && value !== "" && value !== MASK) return [[name, value]];
  return [];
}

/** The line as a finding shows it: each secret's every occurrence (and its encoded forms) replaced, cut to length. */
function mask(line: string, secrets: string[]): string {
  let shown = line;
  for (const secret of [...new Set(secrets)].sort((a, b) => b.length - a.length)) {
    for (const form of new Set([secret, encodeURIComponent(secret), encodeURIComponent(encodeURIComponent(secret))])) {
      shown = shown.replaceAll(form, "«hidden»");
    }
  }
  // A secret found only once decoded: its line is not shown at all, rather than shown with the secret in it.
  if (secrets.some((secret) => decoded(shown).includes(secret))) return "(line withheld: a secret in it is encoded)";
  return shown.length > 600 ? `${shown.slice(0, 600)}…` : shown;
}

/** One offending line: which service's which log, its line number, the problem, and the line with secrets masked. */
export interface Finding {
  file: string;
  line: number;
  problem: string;
  shown: string;
}

export interface ScanResult {
  services: number;
  lines: number;
  secrets: number;
  findings: Finding[];
}

/**
 * Scans a run's folder: each subfolder holding a service record is one service (its logs, its SQLite file or
 * the PostgreSQL database it named, still there), and `mail/` holds what the test SMTP servers received.
 */
export async function scanRun(dir: string): Promise<ScanResult> {
  const findings: Finding[] = [];
  const secrets = new Map<string, Secret>();
  const add = (secret: Secret) => {
    if (secret.value.length >= MIN_SECRET_LENGTH && !secrets.has(secret.value)) secrets.set(secret.value, secret);
  };
  for (const password of TEST_PASSWORDS) add({ kind: "test password", value: password });
  const mailFolder = join(dir, MAIL_FOLDER);
  for (const file of existsSync(mailFolder) ? readdirSync(mailFolder) : []) {
    for (const mail of readFileSync(join(mailFolder, file), "utf8").split(MAIL_SEPARATOR)) {
      for (const code of codesInMail(mail)) add({ kind: "mailed code", value: code });
    }
  }
  const services = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, RECORD_FILE)))
    .map((entry) => join(dir, entry.name));
  for (const folder of services) {
    const record = JSON.parse(readFileSync(join(folder, RECORD_FILE), "utf8")) as ServiceRecord;
    for (const secret of record.secrets) add(secret);
    // Outside production a SESSION_SECRET not given is made at start and kept beside the SQLite file.
    const generated = join(folder, "session-secret");
    if (existsSync(generated)) add({ kind: "SESSION_SECRET", value: readFileSync(generated, "utf8").trim() });
    try {
      const kept = join(folder, OUTBOX_CODES_FILE);
      const codes = existsSync(kept)
        ? (JSON.parse(readFileSync(kept, "utf8")) as string[])
        : await outboxCodes(record.databaseUrl);
      for (const code of codes) add({ kind: "mailed code", value: code });
    } catch (error) {
      findings.push({
        file: folder,
        line: 0,
        problem: `its mail outbox could not be read: ${(error as Error).message}`,
        shown: "",
      });
    }
  }
  const known = [...secrets.values()];
  let lines = 0;
  for (const folder of services) {
    for (const [name, structured] of [
      [STDOUT_FILE, true],
      [STDERR_FILE, false],
    ] as const) {
      const file = join(folder, name);
      if (!existsSync(file)) continue;
      const content = readFileSync(file, "utf8");
      const all = content.endsWith("\n") ? content.slice(0, -1).split("\n") : content ? content.split("\n") : [];
      all.forEach((line, index) => {
        lines++;
        for (const problem of checkLine(line, known, structured)) findings.push({ file, line: index + 1, ...problem });
      });
    }
  }
  return { services: services.length, lines, secrets: known.length, findings };
}

/** The codes of every mail still in a service's outbox (the dev mailbox keeps sent mail; SMTP empties it). */
async function outboxCodes(databaseUrl: string): Promise<string[]> {
  const { db } = openDatabase(databaseUrl);
  try {
    const mails = await db.selectFrom("outbox").select(["text_body", "html_body"]).execute();
    return mails.flatMap((mail) => [...codesInMail(mail.text_body), ...codesInMail(mail.html_body)]);
  } finally {
    await db.destroy();
  }
}

/** The report of a scan that found something: each problem once per line, secrets masked. */
export function describeFindings(result: ScanResult, limit = 50): string {
  const lines = result.findings
    .slice(0, limit)
    .map((f) => `  ${f.file}${f.line ? `:${f.line}` : ""}: ${f.problem}${f.shown ? `\n    ${f.shown}` : ""}`);
  const more = result.findings.length > limit ? [`  … and ${result.findings.length - limit} more`] : [];
  return [
    `The log scan found ${result.findings.length} problem(s) in ${result.lines} log lines of ${result.services} services:`,
    ...lines,
    ...more,
  ].join("\n");
}
