import {
  BRANDS,
  type Catalog,
  isLanguage,
  LANGUAGE_CODES,
  type Language,
  loadCatalog,
  lookup,
} from "@gatehouse/contract";
import { escapeHtml } from "../html.ts";
import { greetingName, type Recipient } from "./greeting.ts";
import type { MailKind } from "./kinds.ts";
import { htmlMail, type MailContent, textMail } from "./layout.ts";
import type { MailSite } from "./links.ts";
import { MAIL_LOGOS } from "./logos.ts";

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** All nine catalogs, loaded once when the module loads: mail is rendered in the recipient's language. */
const catalogs = new Map<Language, Catalog>(
  await Promise.all(LANGUAGE_CODES.map(async (language) => [language, await loadCatalog(language)] as const)),
);
const english = catalogs.get("en") as Catalog;

/** A catalog's words with `{{vars}}` filled in; in HTML the values are escaped (OWASP XSS rule 1). */
export type Words = (key: string, vars?: Record<string, string>, html?: boolean) => string;

function words(language: Language): Words {
  const catalog = catalogs.get(language) ?? english;
  return (key, vars = {}, html = false) => {
    const template = lookup(catalog, key) ?? lookup(english, key) ?? key;
    return template.replace(/\{\{(\w+)\}\}/gu, (_, name: string) => {
      const value = vars[name] ?? "";
      return html ? escapeHtml(value) : value;
    });
  };
}

export interface MailInput {
  kind: MailKind;
  /** The mail's language (links.ts `mailLanguage`); an unknown one falls back to English. */
  language: string;
  /** The brand the person acted on: its look, and the origin its links and logo are on. */
  site: MailSite;
  /** The one link the mail is about (activation, reset …), on the site (`mailLink`). */
  link: string;
  recipient: Recipient;
  /**
   * Words of this one mail (issue #26: which factor, how many codes are left): a value as it is, or `{ key }`, a
   * catalog key said in the mail's language. A body must not start with one (the casing rule reads its first letter).
   */
  vars?: MailVars;
}

export type MailVars = Readonly<Record<string, string | { key: string }>>;

/**
 * Renders a mail in HTML and plain text from the catalogs, in the brand's colours, with its name, logo and legal
 * links. The only text a person typed that can appear is a name, and only under the greeting rules of
 * greeting.ts; it is escaped in the HTML.
 */
export function renderMail(input: MailInput): RenderedMail {
  const language: Language = isLanguage(input.language) ? input.language : "en";
  const brand = BRANDS[input.site.brand];
  const t = words(language);
  const k = `mail.${input.kind}`;
  const said = Object.entries(input.vars ?? {}).map(([name, value]) => [
    name,
    typeof value === "string" ? value : t(value.key),
  ]);
  const brandVars = { ...Object.fromEntries(said), brand: brand.name };
  // Notices (password changed, account deleted) have no fallback link or expiry: those parts are left out.
  const part = (name: string, html: boolean) =>
    lookup(english, `${k}.${name}`) === undefined ? undefined : t(`${k}.${name}`, brandVars, html);
  const name = greetingName(input.kind, language, input.recipient);
  const content = (html: boolean): MailContent => ({
    greeting: name ? t("mail.greeting.named", { name }, html) : t("mail.greeting.neutral", {}, html),
    body: t(`${k}.body`, brandVars, html),
    button: t(`${k}.button`, brandVars, html),
    fallback: part("fallback", html),
    expiry: part("expiry", html),
    ignore: t(`${k}.ignore`, brandVars, html),
    footer: t("mail.footer", brandVars, html),
    privacy: t("footer.privacy", {}, html),
    terms: t("footer.terms", {}, html),
  });
  const subject = t(`${k}.subject`, brandVars);
  const logo = MAIL_LOGOS[brand.id];
  const frame = { brand, language, link: input.link, logo, logoUrl: new URL(logo.path, input.site.origin).href };
  return {
    subject,
    text: textMail(content(false), frame, (label, value) => t("mail.labelled", { label, value })),
    html: htmlMail(content(true), { ...frame, subject }),
  };
}
