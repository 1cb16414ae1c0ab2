import { LANGUAGES, type Language, routeUrl } from "@gatehouse/contract";
import { COUNTRY_CODES, countryName } from "../countries.ts";
import { deviceOf } from "../devices.ts";
import { type MailSite, mailLanguage } from "../mail/links.ts";
import { queueUserMail } from "../mail/outbox.ts";
import type { MailVars } from "../mail/render.ts";
import type { Db } from "../store/db.ts";
import { knownBrowsersStore } from "../store/known-browsers.ts";
import type { UserRow } from "../store/schema.ts";

/**
 * The browser a sign-in finishes in: its device id (the device cookie's it will carry), what it told us about itself,
 * and the site the person acted on (the notice's look, language and link).
 */
export interface SeenBrowser {
  deviceId: string;
  userAgent: string | null | undefined;
  /** The trusted country header's code; null when unknown. */
  country: string | null | undefined;
  site: MailSite;
}

/**
 * Issue #27: a finished sign-in's browser becomes known to the account. The insert that adds it is the only one that
 * may mail (two sign-ins of one new browser at once: one row, one mail), and it mails only when the account already
 * knew another browser: the browser someone registered or activated in, and each account's first browser after this
 * feature is deployed, are learnt silently. ASVS 6.3.5: the person is told of a sign-in from an unusual client. The
 * mail is queued in the insert's transaction: call it in the transaction that opens the session (signin/attempt.ts).
 * Answers whether it mailed.
 */
export async function learnBrowser(trx: Db, user: UserRow, browser: SeenBrowser, now = Date.now()): Promise<boolean> {
  const { site } = browser;
  if (!(await knownBrowsersStore.learn(trx, user.id, browser.deviceId, now))) return false;
  if (!(await knownBrowsersStore.knowsOtherThan(trx, user.id, browser.deviceId))) return false;
  // A browser without a device cookie is new: whoever holds the password could sign in from fresh cookie jars and
  // flood the person's mailbox. A few mails a day say it already; later browsers are learnt without one.
  const learnt = await knownBrowsersStore.countLearntSince(trx, user.id, now - MAIL_WINDOW_MS);
  if (learnt > MAILS_PER_WINDOW) return false;
  const vars = newBrowserVars(browser, mailLanguage(site, user.language), now);
  await queueUserMail(trx, user, "new_browser_sign_in", routeUrl("ACCOUNT_SECURITY"), site, now, vars);
  return true;
}

/** At most this many new-browser mails per account in MAIL_WINDOW_MS (the account's first browser counts too). */
const MAILS_PER_WINDOW = 5;
const MAIL_WINDOW_MS = 24 * 60 * 60 * 1000;

const UNKNOWN = { key: "mail.new_browser_sign_in.unknown" };

/** The mail's words of the browser, the country (named in the mail's language) and the time (UTC, said so). */
function newBrowserVars(browser: SeenBrowser, language: Language, now: number): MailVars {
  const { browser: name, os } = deviceOf(browser.userAgent);
  const device = name && os ? `${name} (${os})` : (name ?? os);
  const code = browser.country?.toUpperCase();
  return {
    device: device ?? UNKNOWN,
    country: code && COUNTRY_CODES.has(code) ? countryName(code, language) : UNKNOWN,
    time: new Intl.DateTimeFormat(LANGUAGES[language].tag, {
      dateStyle: "long",
      timeStyle: "short",
      timeZone: "UTC",
    }).format(now),
  };
}
