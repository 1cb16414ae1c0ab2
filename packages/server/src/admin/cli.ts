import { parseArgs } from "node:util";
import {
  BRAND_IDS,
  englishCatalog,
  isBrandId,
  isLanguage,
  LANGUAGE_CODES,
  lookup,
  registerPasswordRule,
} from "@gatehouse/contract";
import { ZodError } from "zod";
import { normalizeEmail } from "../accounts/identifiers.ts";
import { type PasswordContext, passwordRefusal } from "../accounts/password-policy.ts";
import {
  createUser,
  deleteUser,
  disableUser,
  enableUser,
  findUserByEmail,
  inviteUser,
  NewUser,
  UserExistsError,
  unlockUser,
} from "../accounts/users.ts";
import { audit } from "../audit/audit.ts";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { factorDetails, resetFactors } from "../factors/reset.ts";
import { sendSignOutsToForum } from "../forum/sign-out.ts";
import { mailSite } from "../mail/links.ts";
import { KeyDecryptionError, rotateSigningKeys } from "../oidc/keys.ts";
import { endSessionsWithAccessLoss } from "../sessions/access-loss.ts";
import { auditStore } from "../store/audit.ts";
import { type Db, migrate, openDatabase } from "../store/db.ts";
import { outboxStore } from "../store/outbox.ts";
import type { UserRow } from "../store/schema.ts";
import { trialsStore } from "../store/trials.ts";

const USAGE = `Usage: npm run admin -- <command> [--flags]

Commands:
  user:create  --email E --password P [--first F --last L --country CC --inactive --must-change-password
               --verified]   --verified: the address is known to be the person's (else unproven)
  user:invite  --email E [--brand B --language L]
               create an account without a password and mail its set-up link, on brand B's site
               (default: the brands file's defaultBrand), in language L (default en)
  user:disable --email E     disable the account and end its sessions
  user:enable  --email E
  user:unlock  --email E     lift a sign-in block after repeated wrong passwords
  user:delete  --email E
  mail:list    [--email E]   the dev mailbox: queued and sent mail, newest first, with its link
  audit        [--email E]   the security events, newest first
  trial:list   [--email E --product P]
               the trials started, newest first: when, product code, brand, account
  factors:list  --email E    the account's second factors: authenticator app, passkeys (name, last use),
                             recovery codes left, remembered browsers
  factors:reset --email E    remove every second factor and remembered browser (the person lost them);
                             audited and mailed to the person
  keys:rotate                rotate the OpenID Connect signing keys: the waiting key starts signing, the
                             signing one is kept to verify what it signed, a new key waits; restart every node

Works on the database named by DATABASE_URL (default sqlite:./data/gatehouse.db).`;

class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;
type Command = (db: Db, flags: Flags, config: Config) => Promise<string>;

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

async function existing(db: Db, flags: Flags): Promise<UserRow> {
  const email = required(flags, "email");
  const user = await findUserByEmail(db, email);
  if (!user) throw new UsageError(`no account with the address ${email}`);
  return user;
}

const optional = (value: string | boolean | undefined) => (typeof value === "string" ? value : undefined);

/** A zod failure as refusals, one a line: the field, then the catalog's English words. */
const issueLines = (error: ZodError) =>
  error.issues.map((i) => `${i.path.join(".")}: ${lookup(englishCatalog, i.message) ?? i.message}`);

/** An admin-set password follows the same policy as a registration (ASVS 6.2.4/6.2.11), after its length rule. */
function policyRefusal(password: string, context: PasswordContext): string | undefined {
  if (!registerPasswordRule.safeParse(password).success) return undefined;
  const refusal = passwordRefusal(password, context);
  return refusal ? `password: ${lookup(englishCatalog, `errors.${refusal}`) ?? refusal}` : undefined;
}

/**
 * Every refusal of a new account at once, each on its own line (issue #25): the fields' rules and the password
 * policy, so a second run does not reveal a second problem.
 */
function checkNewUser(input: NewUser): void {
  const parsed = NewUser.safeParse(input);
  const lines = parsed.success ? [] : issueLines(parsed.error);
  const policy = policyRefusal(input.password, input);
  if (policy && !lines.some((line) => line.startsWith("password:"))) lines.push(policy);
  if (lines.length > 0) throw new UsageError(lines.join("\n"));
}

/** What the CLI prints: every message ends with exactly one newline (issue #25). */
const asMessage = (out: string) => `${out.replace(/\s+$/u, "")}\n`;

const COMMANDS: Record<string, Command> = {
  "user:create": async (db, flags) => {
    const input: NewUser = {
      email: required(flags, "email"),
      firstName: optional(flags.first),
      lastName: optional(flags.last),
      password: required(flags, "password"),
      countryCode: optional(flags.country),
      status: flags.inactive ? "pending" : "active",
      requirePasswordUpdate: flags["must-change-password"] === true,
      // The administrator vouches for the address only when saying so (issue #13): else the forum and the OIDC
      // claim treat it as unproven until a mailed link proves it.
      emailVerified: flags.verified === true,
    };
    checkNewUser(input);
    const user = await createUser(db, input);
    return `created ${user.email} (${user.id}, ${user.status})`;
  },
  "user:invite": async (db, flags, config) => {
    const brand = optional(flags.brand) ?? config.brands.defaultBrand;
    if (!isBrandId(brand)) throw new UsageError(`unknown brand ${brand}: one of ${BRAND_IDS.join(", ")}`);
    const language = optional(flags.language) ?? "en";
    if (!isLanguage(language))
      throw new UsageError(`unknown language ${language}: one of ${LANGUAGE_CODES.join(", ")}`);
    // The mail, its link and the portal set-up ends at are the brand's, on its host from the brands file.
    const user = await inviteUser(db, { email: required(flags, "email"), language }, mailSite(config, brand));
    return `invited ${user.email} (${user.id}); the set-up link is in the outbox`;
  },
  "user:disable": async (db, flags) => {
    const user = await existing(db, flags);
    await disableUser(db, user);
    return `disabled ${user.email}`;
  },
  "user:enable": async (db, flags) => {
    const user = await existing(db, flags);
    await enableUser(db, user);
    return `enabled ${user.email}`;
  },
  "user:unlock": async (db, flags) => {
    const user = await existing(db, flags);
    await unlockUser(db, user);
    return `unlocked ${user.email}`;
  },
  audit: async (db, flags) => {
    const email = optional(flags.email);
    const user = email ? await findUserByEmail(db, email) : undefined;
    if (email && !user) throw new UsageError(`no account with the address ${email}`);
    const rows = await auditStore.list(db, 200, user?.id);
    if (rows.length === 0) return "no events";
    return rows
      .map((e) =>
        [
          new Date(e.at).toISOString(),
          e.event.padEnd(18),
          e.user_id ?? "-",
          e.ip ?? "-",
          e.detail ?? "",
          e.user_agent ?? "",
        ]
          .join("  ")
          .trimEnd(),
      )
      .join("\n");
  },
  "mail:list": async (db, flags) => {
    const rows = await outboxStore.list(db, 50, optional(flags.email)?.trim());
    if (rows.length === 0) return "no mail";
    return rows
      .map((m) => {
        const link = /https?:\/\/\S+/u.exec(m.text_body)?.[0] ?? "";
        return `${new Date(m.created_at).toISOString()}  ${m.status.padEnd(7)}  ${m.recipient}  ${m.subject}${link ? `\n    ${link}` : ""}`;
      })
      .join("\n");
  },
  "trial:list": async (db, flags) => {
    const email = optional(flags.email)?.trim();
    const rows = await trialsStore.list(db, {
      email: email ? normalizeEmail(email) : undefined,
      productCode: optional(flags.product)?.trim(),
      limit: 500,
    });
    if (rows.length === 0) return "no trials";
    return rows
      .map((t) => `${new Date(t.started_at).toISOString()}  ${t.product_code}  ${t.brand}  ${t.email}`)
      .join("\n");
  },
  "user:delete": async (db, flags) => {
    const user = await existing(db, flags);
    await deleteUser(db, user);
    return `deleted ${user.email}`;
  },
  "factors:list": async (db, flags) => {
    const user = await existing(db, flags);
    const factors = await factorDetails(db, user.id);
    const when = (at: number | null) => (at === null ? "never" : new Date(at).toISOString());
    return [
      `authenticator app: ${factors.totpSince === null ? "off" : `on since ${when(factors.totpSince)}`}`,
      `passkeys: ${factors.passkeys.length}`,
      ...factors.passkeys.map(
        (p) => `  ${JSON.stringify(p.name)}  added ${when(p.createdAt)}  last used ${when(p.lastUsedAt)}`,
      ),
      `recovery codes left: ${factors.recoveryCodesLeft}`,
      `remembered browsers: ${factors.rememberedBrowsers}`,
    ].join("\n");
  },
  "factors:reset": async (db, flags, config) => {
    const user = await existing(db, flags);
    // The mail's links are on the account's brand site (the brand it registered on).
    const brand = isBrandId(user.brand) ? user.brand : config.brands.defaultBrand;
    const removed = await resetFactors(db, user, mailSite(config, brand));
    return [
      `reset the second factors of ${user.email}: authenticator app ${removed.totp}, passkeys ${removed.passkeys},`,
      `recovery codes ${removed.recoveryCodes}, remembered browsers ${removed.rememberedBrowsers}; sessions kept;`,
      "the person is told by mail",
    ].join(" ");
  },
  // Signing keys (docs/decisions.md "Signing keys"): run it with the service's DATABASE_URL and SESSION_SECRET.
  "keys:rotate": async (db, _flags, config) => {
    const { signing, next, dropped } = await rotateSigningKeys(db, config.sessionSecret);
    return [
      `signing keys are now ${signing.join(", ")}; ${next.join(", ")} wait to sign at the next rotation`,
      dropped.length > 0 ? `dropped ${dropped.join(", ")}` : "no key dropped",
      "restart every node: until then each keeps signing with its key, which every node still publishes",
    ].join("\n");
  },
};

/** Commands that only read: not admin actions for the audit trail. */
const READ_ONLY = new Set(["audit", "mail:list", "trial:list", "factors:list"]);

/** Runs one admin command; returns the exit code. Exported for tests. */
export async function runAdmin(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; out: string }> {
  const { code, out } = await runCommand(argv, env);
  return { code, out: asMessage(out) };
}

async function runCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) return { code: name ? 2 : 0, out: name ? `unknown command ${name}\n\n${USAGE}` : USAGE };
  let flags: Flags;
  try {
    flags = parseArgs({
      args: rest,
      options: {
        email: { type: "string" },
        product: { type: "string" },
        password: { type: "string" },
        first: { type: "string" },
        last: { type: "string" },
        country: { type: "string" },
        inactive: { type: "boolean" },
        "must-change-password": { type: "boolean" },
        verified: { type: "boolean" },
        brand: { type: "string" },
        language: { type: "string" },
      },
      strict: true,
    }).values;
  } catch (error) {
    return { code: 2, out: `${(error as Error).message}\n\n${USAGE}` };
  }
  let db: Db | undefined;
  try {
    const config = loadConfig(env);
    // The dev mailbox exists outside production only (ARCHITECTURE.md "mail").
    if (name === "mail:list" && config.production)
      throw new UsageError("mail:list shows the dev mailbox, which production does not have");
    // Issue #28: the CLI's own, longer timeouts (a rotation, a bulk disable), not a request's few seconds.
    db = openDatabase(config.databaseUrl, config.database.admin).db;
    await migrate(db);
    // Disabling or deleting here signs the person out of the forum too: the gateway's worker sends it (issue #13).
    sendSignOutsToForum(db, config.discourse);
    // Issue #27: and out of the sites signed in under the sessions it ends (back-channel logout), by the same worker.
    endSessionsWithAccessLoss(db);
    const out = await command(db, flags, config);
    // Admin actions are security events too (issue #5); reading the trail or the mailbox is not.
    if (!READ_ONLY.has(name ?? "")) {
      const target = typeof flags.email === "string" ? await findUserByEmail(db, flags.email) : undefined;
      await audit(db, name === "user:unlock" ? "unlock" : "admin", {
        userId: target?.id ?? null,
        detail: name,
        userAgent: "admin-cli",
      });
    }
    return { code: 0, out };
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof UserExistsError ||
      error instanceof KeyDecryptionError
    ) {
      return { code: 1, out: error.message };
    }
    if (error instanceof ZodError) return { code: 1, out: issueLines(error).join("\n") };
    return { code: 1, out: `failed: ${(error as Error).message}` };
  } finally {
    await db?.destroy();
  }
}

if (import.meta.main) {
  const { code, out } = await runAdmin(process.argv.slice(2));
  // Written as is: the message already ends with its newline.
  (code === 0 ? process.stdout : process.stderr).write(out);
  process.exitCode = code;
}
