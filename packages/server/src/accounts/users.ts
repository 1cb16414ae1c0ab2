import { randomUUID } from "node:crypto";
import {
  countryRule,
  DEFAULT_COUNTRY,
  emailRule,
  firstNameRule,
  lastNameRule,
  registerPasswordRule,
} from "@gatehouse/contract";
import { z } from "zod";
import { announceEnded } from "../events/sessions-ended.ts";
import type { MailSite } from "../mail/links.ts";
import type { Db } from "../store/db.ts";
import { knownBrowsersStore } from "../store/known-browsers.ts";
import type { UserRow } from "../store/schema.ts";
import { secondFactorsStore } from "../store/second-factors.ts";
import { sessionsStore } from "../store/sessions.ts";
import { usersStore } from "../store/users.ts";
import { loseAccess } from "./access-lost.ts";
import { normalizeEmail } from "./identifiers.ts";
import { hashPassword } from "./passwords.ts";
import { sendSetup } from "./recovery.ts";
import { clearFailures, forgetAddress } from "./throttle.ts";

export const NewUser = z.object({
  email: emailRule,
  password: registerPasswordRule,
  firstName: z.optional(firstNameRule),
  lastName: z.optional(lastNameRule),
  countryCode: z.optional(countryRule),
  status: z.enum(["pending", "active"]).default("active"),
  /** The user must choose a new password at the next sign-in (spec §4: accounts being merged). */
  requirePasswordUpdate: z.boolean().default(false),
  /** Has the person proven the address? `user:create` says so only with `--verified` (issue #13). */
  emailVerified: z.boolean().default(false),
  language: z.string().default("en"),
  brand: z.string().default("default"),
});
export type NewUser = z.input<typeof NewUser>;

export class UserExistsError extends Error {
  constructor() {
    super("This email address is already connected to an account.");
  }
}

/** What any way of signing up knows of a new account (registration, invitation, admin, social, corporate, trial). */
export interface NewAccount {
  /** Already checked against the contract's e-mail rule. */
  email: string;
  /** The argon2id hash, or null for an account without a password (invited, or signed up through a provider). */
  passwordHash: string | null;
  firstName?: string | undefined;
  lastName?: string | undefined;
  countryCode?: string | undefined;
  newsletter?: boolean;
  status: "pending" | "active";
  /**
   * The address is proven (issue #13): a provider vouched for it, or an administrator said so. A mailed link
   * (activation, reset, set-up) proves it later. Default: not proven.
   */
  emailVerified?: boolean;
  /** The user must choose a new password at the next sign-in (spec §4: accounts being merged). */
  requirePasswordUpdate?: boolean;
  language: string;
  brand: string;
  /** Where the sign-up came from (utm_*, referer, product code, trial flags), kept as JSON. */
  signupMeta?: Record<string, unknown>;
}

/**
 * The one way an account row is made (issue #10 §1): the address normalised and unique case-insensitively, a
 * profile without names or country owing its completion (spec §4), and `then` (the activation or set-up mail)
 * in the same transaction, so a crash half way leaves neither an account without its mail nor the reverse.
 * Answers undefined when the address is taken, also when two creations race (the unique index decides).
 */
export async function insertAccount(
  db: Db,
  account: NewAccount,
  then: (trx: Db, user: UserRow) => Promise<void> = async () => {},
  now = Date.now(),
): Promise<UserRow | undefined> {
  const emailNormalized = normalizeEmail(account.email);
  if (await usersStore.findByEmail(db, emailNormalized)) return undefined;
  const row: UserRow = {
    id: randomUUID(),
    email: account.email,
    email_normalized: emailNormalized,
    password_hash: account.passwordHash,
    first_name: account.firstName ?? "",
    last_name: account.lastName ?? "",
    country_code: account.countryCode ?? DEFAULT_COUNTRY,
    newsletter: account.newsletter ? 1 : 0,
    status: account.status,
    customer_number: null,
    password_allowed: 1,
    required_password_update: account.requirePasswordUpdate ? 1 : 0,
    required_profile_update: account.firstName && account.lastName && account.countryCode ? 0 : 1,
    language: account.language,
    brand: account.brand,
    created_at: now,
    updated_at: now,
    signup_meta: account.signupMeta ? JSON.stringify(account.signupMeta) : null,
    marketing_info: null,
    email_verified: account.emailVerified ? 1 : 0,
  };
  try {
    await db.transaction().execute(async (trx) => {
      await usersStore.insert(trx, row);
      await then(trx, row);
    });
  } catch (error) {
    if (await usersStore.findByEmail(db, emailNormalized)) return undefined;
    throw error;
  }
  return row;
}

/** `user:create` and tests: an account with a hashed password; throws UserExistsError when the address is taken. */
export async function createUser(db: Db, input: NewUser, now = Date.now()): Promise<UserRow> {
  const data = NewUser.parse(input);
  const row = await insertAccount(
    db,
    {
      email: data.email,
      passwordHash: await hashPassword(data.password),
      firstName: data.firstName,
      lastName: data.lastName,
      countryCode: data.countryCode,
      status: data.status,
      requirePasswordUpdate: data.requirePasswordUpdate,
      emailVerified: data.emailVerified,
      language: data.language,
      brand: data.brand,
    },
    undefined,
    now,
  );
  if (!row) throw new UserExistsError();
  return row;
}

/**
 * `user:invite`: an account without a password, pending until its owner sets one from the mailed link
 * (spec §2 "Set up password (invited users)"). Names and country come later, through the profile. The account,
 * its mail and its link belong to the site's brand, so set-up ends at that brand's customer portal.
 */
export async function inviteUser(
  db: Db,
  input: { email: string; language?: string },
  site: MailSite,
  now = Date.now(),
): Promise<UserRow> {
  const account: NewAccount = {
    email: emailRule.parse(input.email),
    passwordHash: null,
    status: "pending",
    language: input.language ?? "en",
    brand: site.brand,
  };
  const row = await insertAccount(db, account, (trx, user) => sendSetup(trx, user, site, now), now);
  if (!row) throw new UserExistsError();
  return row;
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return usersStore.findByEmail(db, normalizeEmail(email));
}

/**
 * Disables an account and ends its sessions at once (ASVS 7.4.2), in one transaction with what must follow it
 * elsewhere (the forum's sign-out, accounts/access-lost.ts), live sessions or not.
 */
export async function disableUser(db: Db, user: UserRow, now = Date.now()): Promise<void> {
  const ended = await loseAccess(db, { userId: user.id, kind: "disabled", now }, async (trx) => {
    await usersStore.update(trx, user.id, { status: "disabled", updated_at: now });
    return sessionsStore.deleteForUser(trx, user.id);
  });
  await announceEnded(db, ended, "disabled");
}

export async function enableUser(db: Db, user: UserRow): Promise<void> {
  await usersStore.update(db, user.id, { status: "active", updated_at: Date.now() });
}

/** Lifts a sign-in block on the address. */
export async function unlockUser(db: Db, user: UserRow): Promise<void> {
  await clearFailures(db, user.email_normalized);
}

/**
 * Removes the account; its sessions end explicitly (so their end is announced), its external identities go with it,
 * and what must follow elsewhere (the forum's sign-out) is written in the same transaction, live sessions or not.
 */
export async function deleteUser(db: Db, user: UserRow, now = Date.now()): Promise<void> {
  const ended = await loseAccess(db, { userId: user.id, kind: "deleted", now }, async (trx) => {
    await forgetAddress(trx, user.email_normalized);
    // Issue #26: its authenticator app, recovery codes, passkeys, remembered browsers, count of wrong codes (the
    // tables have no foreign key: every deletion removes them, the self-service one and this one).
    await secondFactorsStore.deleteAllOf(trx, user.id);
    // Issue #27: the browsers it signed in from (no foreign key either).
    await knownBrowsersStore.deleteAllOf(trx, user.id);
    const sessions = await sessionsStore.deleteForUser(trx, user.id);
    await usersStore.delete(trx, user.id);
    return sessions;
  });
  await announceEnded(db, ended, "deleted");
}
