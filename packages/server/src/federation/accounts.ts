import { FEDERATION_PENDING_TTL_MS, type SocialPlatform } from "@gatehouse/contract";
import { normalizeEmail } from "../accounts/identifiers.ts";
import type { Origin } from "../accounts/origin.ts";
import { sendActivation } from "../accounts/registration.ts";
import { insertAccount } from "../accounts/users.ts";
import { audit } from "../audit/audit.ts";
import type { IdentityProvider } from "../settings/idps.ts";
import type { Db } from "../store/db.ts";
import { externalIdentitiesStore } from "../store/external-identities.ts";
import { federationStore } from "../store/federation.ts";
import type { FederationPendingRow, UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";
import { browserKey, type ProviderProfile } from "./relying-party.ts";

/** What a provider's answer leads to: a sign-in, a pending registration or link, or a refusal for the error page. */
export type Resolution =
  | { kind: "sign_in"; user: UserRow }
  | { kind: "register" | "link" }
  | {
      kind: "refused";
      code:
        | "social_account_exists"
        | "social_user_disabled"
        | "user_disabled"
        | "social_idp_error"
        | "external_idp_error";
      why: string;
    };

/**
 * A social provider's answer (issue #11). A linked identity signs in; identities are keyed by (provider, subject),
 * never by e-mail (ASVS 6.8.1). A new address waits for the person's details; an address that belongs to an account
 * is never linked automatically: linking is offered, behind the account's password, only when the provider vouches
 * for the address and the account confirmed its own (notes/federation.md: pre-account takeover).
 */
export async function resolveSocial(
  db: Db,
  idp: IdentityProvider,
  profile: ProviderProfile,
  pending: { browser: string; returnTo: string | undefined },
  now = Date.now(),
): Promise<Resolution> {
  const linked = await externalIdentitiesStore.find(db, idp.id, profile.subject);
  const owner = linked ? await usersStore.findById(db, linked.user_id) : undefined;
  if (owner) return { kind: "sign_in", user: owner };
  if (!profile.email) return { kind: "refused", code: "social_idp_error", why: "the provider gave no e-mail address" };
  const account = await usersStore.findByEmail(db, normalizeEmail(profile.email));
  if (account?.status === "disabled") return { kind: "refused", code: "social_user_disabled", why: "account disabled" };
  if (account && !(profile.emailVerified && account.status === "active")) {
    return { kind: "refused", code: "social_account_exists", why: "address taken; linking not offered (unverified)" };
  }
  const kind = account ? "link" : "register";
  await federationStore.putPending(db, pendingRow(kind, idp, profile, pending, now));
  return { kind };
}

function pendingRow(
  kind: "register" | "link",
  idp: IdentityProvider,
  profile: ProviderProfile,
  pending: { browser: string; returnTo: string | undefined },
  now: number,
): FederationPendingRow {
  return {
    browser: browserKey(pending.browser),
    kind,
    provider: idp.id,
    subject: profile.subject,
    email: profile.email ?? "",
    email_verified: profile.emailVerified ? 1 : 0,
    first_name: profile.firstName,
    last_name: profile.lastName,
    full_name: profile.fullName,
    return_to: pending.returnTo ?? null,
    expires_at: now + FEDERATION_PENDING_TTL_MS,
  };
}

/**
 * A company's answer (issue #11): the company's provider is the authority for its domains, as the operator set in
 * IDPS_FILE, so its person signs in at once: a linked identity, else the account of the address (linked now), else a
 * new account made just in time from the provider's claims. An address outside the provider's domains is refused
 * (a provider may not speak for another company's people). An account that never confirmed its address loses the
 * password it was made with: whoever chose it never proved the mailbox (pre-account takeover, notes/federation.md).
 */
export async function resolveCorporate(
  db: Db,
  idp: IdentityProvider,
  profile: ProviderProfile,
  origin: Origin & { country: string },
  now = Date.now(),
): Promise<Resolution> {
  const linked = await externalIdentitiesStore.find(db, idp.id, profile.subject);
  const owner = linked ? await usersStore.findById(db, linked.user_id) : undefined;
  if (owner) return { kind: "sign_in", user: owner };
  const domain = profile.email?.toLowerCase().split("@").at(-1);
  if (!profile.email || !domain || !idp.domains.includes(domain)) {
    return { kind: "refused", code: "external_idp_error", why: `address outside ${idp.id}'s domains` };
  }
  // A company's provider speaks for its domains, but not for an address it says it never checked (Entra ID and
  // others send no `email_verified` at all: their silence is the operator's trust in IDPS_FILE).
  if (profile.emailUnverified) return { kind: "refused", code: "external_idp_error", why: "address not verified" };
  try {
    return await signInCorporate(db, idp, profile, profile.email, origin, now);
  } catch (error) {
    // The company's person is linked to another account already (two answers raced): nothing changed.
    if (error instanceof IdentityTaken) return { kind: "refused", code: "external_idp_error", why: "identity taken" };
    throw error;
  }
}

async function signInCorporate(
  db: Db,
  idp: IdentityProvider,
  profile: ProviderProfile,
  email: string,
  origin: Origin & { country: string },
  now: number,
): Promise<Resolution> {
  const identity = { provider: idp.id, subject: profile.subject, email: email, linked_at: now };
  for (let attempt = 0; attempt < 2; attempt++) {
    const account = await usersStore.findByEmail(db, normalizeEmail(email));
    // A disabled account stays as it is: nothing is linked to it (the sign-in would be refused anyway).
    if (account?.status === "disabled") return { kind: "refused", code: "user_disabled", why: "account disabled" };
    if (account) {
      // The account's identity at this company is one person (subject): another subject giving the same address
      // (a reused mailbox, an edited directory entry) is not let in by the address alone (ASVS 6.8.1).
      const known = await externalIdentitiesStore.findForUser(db, account.id, idp.id);
      if (known && known.subject !== profile.subject) {
        return { kind: "refused", code: "external_idp_error", why: "another subject is linked for this address" };
      }
      await db.transaction().execute(async (trx) => {
        if (account.status === "pending") {
          // Whoever made it never proved the mailbox: neither the password nor an identity they linked stays.
          await usersStore.update(trx, account.id, {
            status: "active",
            password_hash: null,
            email_verified: profile.emailVerified ? 1 : 0,
            updated_at: now,
          });
          await externalIdentitiesStore.deleteAllForUser(trx, account.id);
        }
        await linkIdentity(trx, account.id, identity);
      });
      await audit(db, "identity_linked", { userId: account.id, detail: idp.id }, now);
      return { kind: "sign_in", user: (await usersStore.findById(db, account.id)) ?? account };
    }
    const created = await insertAccount(
      db,
      {
        email: email,
        passwordHash: null,
        firstName: profile.firstName || undefined,
        lastName: profile.lastName || undefined,
        countryCode: origin.country === "ZZ" ? undefined : origin.country,
        status: "active",
        // A company's silence about the address lets the person in (IDPS_FILE is the operator's trust), but only
        // its `email_verified: true` proves the address (issue #13: the forum then asks the person to activate).
        emailVerified: profile.emailVerified,
        language: origin.language,
        brand: origin.site.brand,
        signupMeta: { provider: idp.id, returnTo: origin.returnTo },
      },
      (trx, user) => linkIdentity(trx, user.id, identity),
      now,
    );
    if (created) {
      await audit(db, "identity_linked", { userId: created.id, detail: `${idp.id} (new account)` }, now);
      return { kind: "sign_in", user: created };
    }
    // Another request made the account meanwhile: link to it on the second pass.
  }
  return { kind: "refused", code: "external_idp_error", why: "account creation raced twice" };
}

/** An identity that another account holds already (two answers for one person raced, or an address changed). */
export class IdentityTaken extends Error {}

/**
 * Links an identity; an account holds one identity a provider, so an older one of that provider goes. An identity
 * another account holds throws IdentityTaken (the callers refuse), found first or by the unique index in a race.
 */
export async function linkIdentity(
  db: Db,
  userId: string,
  identity: { provider: string; subject: string; email: string | null; linked_at: number },
): Promise<void> {
  const holder = await externalIdentitiesStore.find(db, identity.provider, identity.subject);
  if (holder && holder.user_id !== userId) throw new IdentityTaken();
  await externalIdentitiesStore.deleteForUser(db, userId, identity.provider);
  try {
    await externalIdentitiesStore.insert(db, { ...identity, user_id: userId });
  } catch (error) {
    // A transaction that met the unique index cannot ask again on PostgreSQL: the error itself says it.
    if (isUniqueViolation(error)) throw new IdentityTaken();
    throw error;
  }
}

/** The pending sign-up or link of a browser (by its session's token), unless it has expired. */
export function pendingOf(db: Db, sessionToken: string, now: number) {
  return federationStore.findPending(db, browserKey(sessionToken), now);
}

/** Takes the browser's pending sign-in once (linking it behind the password); undefined when another request did. */
export function takePending(db: Db, sessionToken: string, now: number) {
  return federationStore.consumePending(db, browserKey(sessionToken), now);
}

/**
 * Issue #26 (an attacker's review): linking a provider's identity behind the password of an account that has a second
 * factor waits for that factor, or a password alone would add a way in. Once the attempt's second factor is given, the
 * browser's pending link is made when it is this very sign-in's (the account's address, the attempt's provider);
 * answers the provider linked, if any.
 */
export async function linkPendingAfterFactor(
  db: Db,
  sessionToken: string,
  user: UserRow,
  provider: string | null,
  client: { ip: string; userAgent: string },
  now: number,
): Promise<string | undefined> {
  const pending = await pendingOf(db, sessionToken, now);
  if (pending?.kind !== "link" || pending.provider !== provider) return undefined;
  if (normalizeEmail(pending.email) !== user.email_normalized) return undefined;
  const taken = await takePending(db, sessionToken, now);
  if (!taken) return undefined;
  try {
    const identity = { provider: taken.provider, subject: taken.subject, email: taken.email, linked_at: now };
    await linkIdentity(db, user.id, identity);
  } catch (error) {
    // The provider's person became another account's meanwhile: nothing linked; the sign-in itself stands.
    if (error instanceof IdentityTaken) return undefined;
    throw error;
  }
  const context = { userId: user.id, ip: client.ip, userAgent: client.userAgent, detail: taken.provider };
  await audit(db, "identity_linked", context, now);
  return taken.provider;
}

/** The identities linked to an account (the profile's list of them). */
export function identitiesOf(db: Db, userId: string) {
  return externalIdentitiesStore.listForUser(db, userId);
}

/** Unlinks an account's identity of a provider, unless it is the account's last way to sign in ("last"). */
export function unlinkIdentity(db: Db, userId: string, provider: string) {
  return externalIdentitiesStore.deleteUnlessLast(db, userId, provider);
}

/** PostgreSQL's unique_violation (23505) or SQLite's UNIQUE constraint. */
function isUniqueViolation(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "23505" || (typeof message === "string" && message.includes("UNIQUE constraint failed"));
}

export class PendingGone extends Error {}

export type SocialRegistration =
  | { ok: true; user: UserRow; activation: boolean; pending: FederationPendingRow }
  | { ok: false; refusal: "social_invalid_authentication" | "social_email_exists" };

/**
 * POST /account/social/register: the account from the provider's answer and the person's details, its identity
 * linked, and (when the provider did not vouch for the address) its activation mail, all in one transaction that
 * also takes the pending answer, so a crash or a second submit leaves no half-made account and no double.
 */
export async function registerFromProvider(
  db: Db,
  browser: string,
  details: { firstName: string; lastName: string; countryCode: string; newsletterSubscription: boolean },
  origin: Origin,
  now = Date.now(),
): Promise<SocialRegistration> {
  const pending = await federationStore.findPending(db, browserKey(browser), now);
  if (pending?.kind !== "register") return { ok: false, refusal: "social_invalid_authentication" };
  const verified = pending.email_verified === 1;
  const returnTo = origin.returnTo ?? pending.return_to ?? undefined;
  try {
    const user = await insertAccount(
      db,
      {
        email: pending.email,
        passwordHash: null,
        firstName: details.firstName,
        lastName: details.lastName,
        countryCode: details.countryCode,
        newsletter: details.newsletterSubscription,
        // The provider vouched for the address: it needs no activation mail (issue #11).
        status: verified ? "active" : "pending",
        emailVerified: verified,
        language: origin.language,
        brand: origin.site.brand,
        // An unproven address: its identity stays only if this browser activates it (accounts/activation.ts).
        signupMeta: { provider: pending.provider, returnTo, ...(verified ? {} : { browser: pending.browser }) },
      },
      async (trx, row) => {
        if (!(await federationStore.consumePending(trx, pending.browser, now))) throw new PendingGone();
        await linkIdentity(trx, row.id, {
          provider: pending.provider,
          subject: pending.subject,
          email: pending.email,
          linked_at: now,
        });
        if (!verified) await sendActivation(trx, row, { ...origin, returnTo }, now);
      },
      now,
    );
    if (!user) {
      // The address was taken meanwhile: the same answer may now link, where linking may be offered (spec §8).
      const account = await usersStore.findByEmail(db, normalizeEmail(pending.email));
      if (verified && account?.status === "active") await federationStore.putPending(db, { ...pending, kind: "link" });
      return { ok: false, refusal: "social_email_exists" };
    }
    await audit(db, "identity_linked", { userId: user.id, detail: `${pending.provider} (new account)` }, now);
    return { ok: true, user, activation: !verified, pending };
  } catch (error) {
    // The answer was used meanwhile, or its person registered in another browser: nothing was made.
    if (error instanceof PendingGone || error instanceof IdentityTaken) {
      return { ok: false, refusal: "social_invalid_authentication" };
    }
    throw error;
  }
}

/** The pending answer as the screens show it. */
export function pendingAnswer(row: FederationPendingRow) {
  return {
    kind: row.kind,
    platform: row.provider as SocialPlatform,
    email: row.email,
    emailVerified: row.email_verified === 1,
    firstName: row.first_name,
    lastName: row.last_name,
    fullName: row.full_name,
    ...(row.return_to ? { returnTo: row.return_to } : {}),
  };
}
