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
import type { MailSite } from "../mail/links.ts";
import { closeUserSessions } from "../sessions/sessions.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";
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
  language: z.string().default("en"),
  brand: z.string().default("default"),
});
export type NewUser = z.input<typeof NewUser>;

export class UserExistsError extends Error {
  constructor() {
    super("This email address is already connected to an account.");
  }
}

/** Creates an account with a hashed password; throws UserExistsError when the address is taken. */
export async function createUser(db: Db, input: NewUser, now = Date.now()): Promise<UserRow> {
  const data = NewUser.parse(input);
  const emailNormalized = normalizeEmail(data.email);
  if (await usersStore.findByEmail(db, emailNormalized)) throw new UserExistsError();
  const row: UserRow = {
    id: randomUUID(),
    email: data.email,
    email_normalized: emailNormalized,
    password_hash: await hashPassword(data.password),
    first_name: data.firstName ?? "",
    last_name: data.lastName ?? "",
    country_code: data.countryCode ?? DEFAULT_COUNTRY,
    newsletter: 0,
    status: data.status,
    customer_number: null,
    password_allowed: 1,
    required_password_update: data.requirePasswordUpdate ? 1 : 0,
    // A profile without names or country must be completed after sign-in (spec §4).
    required_profile_update: data.firstName && data.lastName && data.countryCode ? 0 : 1,
    language: data.language,
    brand: data.brand,
    created_at: now,
    updated_at: now,
    signup_meta: null,
    marketing_info: null,
  };
  try {
    await usersStore.insert(db, row);
  } catch (error) {
    // The unique index is the last word when two creations race.
    if (await usersStore.findByEmail(db, emailNormalized)) throw new UserExistsError();
    throw error;
  }
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
  const email = emailRule.parse(input.email);
  const emailNormalized = normalizeEmail(email);
  if (await usersStore.findByEmail(db, emailNormalized)) throw new UserExistsError();
  const row: UserRow = {
    id: randomUUID(),
    email,
    email_normalized: emailNormalized,
    password_hash: null,
    first_name: "",
    last_name: "",
    country_code: DEFAULT_COUNTRY,
    newsletter: 0,
    status: "pending",
    customer_number: null,
    password_allowed: 1,
    required_password_update: 0,
    required_profile_update: 1,
    language: input.language ?? "en",
    brand: site.brand,
    created_at: now,
    updated_at: now,
    signup_meta: null,
    marketing_info: null,
  };
  await db.transaction().execute(async (trx) => {
    await usersStore.insert(trx, row);
    await sendSetup(trx, row, site, now);
  });
  return row;
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return usersStore.findByEmail(db, normalizeEmail(email));
}

/** Disables an account and ends its sessions at once (ASVS 7.4.2). */
export async function disableUser(db: Db, user: UserRow): Promise<void> {
  await usersStore.update(db, user.id, { status: "disabled", updated_at: Date.now() });
  await closeUserSessions(db, user.id, "disabled");
}

export async function enableUser(db: Db, user: UserRow): Promise<void> {
  await usersStore.update(db, user.id, { status: "active", updated_at: Date.now() });
}

/** Lifts a sign-in block on the address. */
export async function unlockUser(db: Db, user: UserRow): Promise<void> {
  await clearFailures(db, user.email_normalized);
}

/** Removes the account; its sessions end first, so their end is announced, and its external identities go with it. */
export async function deleteUser(db: Db, user: UserRow): Promise<void> {
  await forgetAddress(db, user.email_normalized);
  await closeUserSessions(db, user.id, "deleted");
  await usersStore.delete(db, user.id);
}
