import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { routeUrl } from "@gatehouse/contract";
import { afterEach, describe, expect, it } from "vitest";
import { mailLink } from "../packages/server/src/mail/links.ts";
import { queueMail } from "../packages/server/src/mail/outbox.ts";
import { renderMail } from "../packages/server/src/mail/render.ts";
import { migrate, openDatabase } from "../packages/server/src/store/db.ts";
import {
  checkLine,
  codesInMail,
  configuredSecrets,
  MAIL_FOLDER,
  MAIL_SEPARATOR,
  STDERR_FILE,
  STDOUT_FILE,
  scanRun,
  writeServiceRecord,
} from "./log-scan.ts";
import { TEST_PASSWORDS } from "./passwords.ts";

const code = () => randomBytes(32).toString("base64url");
const site = { brand: "default", origin: "http://localhost:8080" } as const;

/** A mail as the server renders it, with a code in its link. */
function mailWith(secret: string) {
  return renderMail({
    kind: "password_reset",
    language: "en",
    site,
    link: mailLink(site, routeUrl("PASSWORD_RESET", { code: secret }), "en"),
    recipient: { firstName: "Ada", lastName: "Ng", addressVerified: true },
  });
}

// Lines as a service writes them at LOG_LEVEL=info (taken from a browser run, ids shortened).
const CLEAN = [
  '{"level":30,"time":1,"pid":7,"hostname":"h","msg":"Server listening at http://127.0.0.1:40001"}',
  '{"level":30,"time":2,"pid":7,"hostname":"h","reqId":"req-1","req":{"method":"GET","url":"/account/password-reset?code=REDACTED&lang=en","host":"localhost:40001","remoteAddress":"198.51.100.7","remotePort":5123},"msg":"incoming request"}',
  '{"level":30,"time":3,"pid":7,"hostname":"h","reqId":"req-1","res":{"statusCode":200},"responseTime":2.1,"msg":"request completed"}',
  '{"level":30,"time":4,"pid":7,"hostname":"h","reqId":"req-2","guid":"6f1c8c1e-0d5e-4b8a-9d59-0b7d3c1f2a10","code":"invalid_code","msg":"request refused"}',
  '{"level":50,"time":5,"pid":7,"hostname":"h","reqId":"req-3","guid":"0b7d3c1f-2a10-4b8a-9d59-6f1c8c1e0d5e","code":"internal_server_error","err":{"type":"Error","message":"e2e: writes of this account are refused"},"msg":"request failed"}',
  '{"level":30,"time":6,"pid":7,"hostname":"h","mail":"4c1f","kind":"activation","msg":"mail sent"}',
];

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** A run folder with one SQLite service (a mail in its outbox) and one mail received over SMTP, with their codes. */
async function runFolder(
  stdout: string[],
  stderr: string[] = [],
  env: Record<string, string> = {},
  { inOutbox, bySmtp } = { inOutbox: code(), bySmtp: code() },
) {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-log-scan-"));
  dirs.push(dir);
  const service = join(dir, "service-1");
  mkdirSync(service);
  mkdirSync(join(dir, MAIL_FOLDER));
  const databaseUrl = `sqlite:${join(service, "gatehouse.db")}`;
  const { db } = openDatabase(databaseUrl);
  await migrate(db);
  await queueMail(db, { userId: null, to: "ada@example.com", kind: "password_reset", ...mailWith(inOutbox) });
  await db.destroy();
  appendFileSync(join(dir, MAIL_FOLDER, "1.txt"), `${mailWith(bySmtp).text}${MAIL_SEPARATOR}`);
  writeServiceRecord(service, { label: "service", databaseUrl, secrets: configuredSecrets(env) });
  writeFileSync(join(service, STDOUT_FILE), `${stdout.join("\n")}\n`);
  writeFileSync(join(service, STDERR_FILE), stderr.map((line) => `${line}\n`).join(""));
  return { dir, inOutbox, bySmtp };
}

describe("the log scan of a browser run", () => {
  it("passes a clean log", async () => {
    const { dir } = await runFolder(CLEAN, ["(node:7) a warning of Node's, not JSON"]);
    const result = await scanRun(dir);
    expect(result.findings).toEqual([]);
    expect(result.services).toBe(1);
    expect(result.lines).toBe(CLEAN.length + 1);
  });

  it("finds the code of a mail in the outbox and of one received over SMTP, and masks them", async () => {
    const [inOutbox, bySmtp, elsewhere] = [code(), code(), code()];
    const { dir } = await runFolder(
      [
        ...CLEAN,
        `{"level":30,"time":7,"msg":"${elsewhere} was handed out by no service of this run"}`,
        `{"level":30,"time":8,"msg":"checked ${inOutbox}"}`,
        `{"level":40,"time":9,"detail":"${bySmtp} refused"}`,
      ],
      [],
      {},
      { inOutbox, bySmtp },
    );
    const { findings } = await scanRun(dir);
    expect(findings.map((f) => [f.line, f.problem])).toEqual([
      [CLEAN.length + 2, "holds a mailed code"],
      [CLEAN.length + 3, "holds a mailed code"],
    ]);
    for (const finding of findings) {
      expect(finding.shown).not.toContain(inOutbox);
      expect(finding.shown).not.toContain(bySmtp);
      expect(finding.shown).toContain("«hidden»");
    }
  });

  it("finds a test password, a configured secret and the database's password, in stderr too", async () => {
    const session = randomBytes(32).toString("base64url");
    const { dir } = await runFolder(
      [`{"level":30,"time":1,"msg":"login","body":{"email":"a@b.c","pass":"${TEST_PASSWORDS[1]}"}}`],
      [`Error: connect postgres://postgres:pg-Password-9@127.0.0.1/x ${session}`],
      { SESSION_SECRET: session, DATABASE_URL: "postgres://postgres:pg-Password-9@127.0.0.1:5432/gh_1" },
    );
    const { findings } = await scanRun(dir);
    expect(findings.map((f) => f.problem).sort()).toEqual([
      "holds a DATABASE_URL password",
      "holds a SESSION_SECRET",
      "holds a test password",
    ]);
    expect(findings.map((f) => f.shown).join()).not.toMatch(/pg-Password-9|correct horse/u);
  });

  it.each([
    [
      "a code in a URL",
      '{"req":{"url":"/account/activate?code=Zm9vYmFyYmF6cXV4"},"reqId":"r"}',
      "holds a value of code=",
    ],
    [
      "a code inside an encoded return address",
      '{"msg":"/login?return_to=%2Foidc%3Fa%3D1%26code%3DZm9vYmFyYmF6"}',
      "holds a value of code=",
    ],
    [
      "an access token",
      '{"msg":"/register/trimble/complete?access_token=abc.def-ghi"}',
      "holds a value of access_token=",
    ],
    [
      "an ID token hint",
      '{"msg":"GET /oidc/session/end?id_token_hint=abcdefgh&x=1"}',
      "holds a value of id_token_hint=",
    ],
    ["a JWT", '{"msg":"token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"}', "holds a JWT"],
    ["a bearer token", '{"msg":"Authorization: Bearer abcdefgh12345678"}', "holds an Authorization value"],
    ["a session cookie", '{"msg":"cookie gh_session=abcdefgh12345678; lang=en"}', "holds the cookie gh_session"],
    ["the provider's cookie", '{"msg":"_interaction=abcdefgh12345678"}', "holds the cookie _interaction"],
    ["a cookie header field", '{"req":{"headers":{"cookie":"lang=en"}},"reqId":"r"}', 'holds a "cookie" field'],
    ["a client secret", '{"msg":"client_secret=s3cr3t-value"}', "holds a value of client_secret="],
    ["a client secret field", '{"client":{"client_secret":"s3cr3t"}}', 'holds a "client_secret" field'],
    ["a line that is not JSON", "GET /account 200", "is not a JSON line"],
    [
      "a request line without its id",
      '{"req":{"url":"/"},"msg":"incoming request"}',
      "is a request line without reqId",
    ],
    [
      "an error line without a guid",
      '{"level":50,"reqId":"r","msg":"request failed"}',
      "is an error line without guid",
    ],
  ])("finds %s", (_, line, problem) => {
    expect(checkLine(line, [], true).map((p) => p.problem)).toContain(problem);
  });

  it("lets the masks and the words that look like secrets through", () => {
    for (const line of [
      '{"req":{"url":"/oidc/session/end?id_token_hint=REDACTED&post_logout_redirect_uri=x"},"reqId":"r"}',
      '{"msg":"response_type=code&code_challenge=abcdefgh12345678&error_code=invalid_code"}',
      '{"msg":"/api/account/recover/REDACTED","code":"invalid_code","guid":"g","level":50}',
      '{"msg":"lang=en; gh_session=REDACTED"}',
    ]) {
      expect(checkLine(line, [], true)).toEqual([]);
    }
  });

  it("collects a service's configured secrets and the client secrets of its files", () => {
    const dir = mkdtempSync(join(tmpdir(), "gatehouse-log-scan-"));
    dirs.push(dir);
    const clients = join(dir, "clients.json");
    writeFileSync(clients, JSON.stringify({ clients: [{ client_id: "site", client_secret: "site-secret-1234" }] }));
    const secrets = configuredSecrets({
      SESSION_SECRET: "a".repeat(32),
      DISCOURSE_API_KEY: "forum-api-key",
      SMTP_URL: "smtps://mailer:smtp%20pass@mail.example:465",
      CLIENTS_FILE: clients,
      PUBLIC_URL: "http://localhost:8080",
    });
    expect(secrets.map((s) => [s.kind, s.value])).toEqual([
      ["SESSION_SECRET", "a".repeat(32)],
      ["DISCOURSE_API_KEY", "forum-api-key"],
      ["SMTP_URL password", "smtp pass"],
      ["client_secret of CLIENTS_FILE", "site-secret-1234"],
    ]);
  });

  it("reads the codes of a rendered mail's links, in its text and its HTML", () => {
    const secret = code();
    const mail = mailWith(secret);
    expect(codesInMail(mail.text)).toEqual([secret]);
    expect(codesInMail(mail.html)).toEqual([secret]);
  });
});
