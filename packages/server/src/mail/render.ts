import {
  BRANDS,
  type BrandId,
  type Catalog,
  isBrandId,
  isLanguage,
  LANGUAGE_CODES,
  LANGUAGES,
  type Language,
  loadCatalog,
  lookup,
} from "@gatehouse/contract";

import { escapeHtml } from "../html.ts";

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** The mail kinds and the catalog section each takes its words from. */
export type MailKind =
  | "activation"
  | "password_reset"
  | "password_changed"
  | "password_setup"
  | "deletion_request"
  | "account_deleted";

/** All nine catalogs, loaded once when the module loads: mail is rendered in the recipient's language. */
const catalogs = new Map<Language, Catalog>(
  await Promise.all(LANGUAGE_CODES.map(async (language) => [language, await loadCatalog(language)] as const)),
);

function words(language: Language) {
  const english = catalogs.get("en") as Catalog;
  const catalog = catalogs.get(language) ?? english;
  return (key: string, vars: Record<string, string> = {}, html = false) => {
    const template = lookup(catalog, key) ?? lookup(english, key) ?? key;
    return template.replace(/\{\{(\w+)\}\}/gu, (_, name: string) => {
      const value = vars[name] ?? "";
      return html ? escapeHtml(value) : value;
    });
  };
}

export interface MailInput {
  kind: MailKind;
  language: string;
  brand: string;
  publicUrl: URL;
  /** The one link the mail is about (activation, reset …), on PUBLIC_URL. */
  link: string;
  name: string;
}

/**
 * Renders a mail in HTML and plain text from the catalogs, in the brand's colours, with its name, logo and legal
 * links. Values from users are escaped in the HTML; the layout is a single table, as mail clients need.
 */
export function renderMail(input: MailInput): RenderedMail {
  const language: Language = isLanguage(input.language) ? input.language : "en";
  const brandId: BrandId = isBrandId(input.brand) ? input.brand : "default";
  const brand = BRANDS[brandId];
  const t = words(language);
  const vars = { brand: brand.name, name: input.name, link: input.link };
  const k = `mail.${input.kind}`;
  const subject = t(`${k}.subject`, vars);
  const logo = new URL(brand.logo, input.publicUrl).href;
  // Notices (password changed) have no fallback link or expiry: those parts are left out.
  const has = (part: string) => lookup(catalogs.get("en") as Catalog, `${k}.${part}`) !== undefined;
  const text = [
    t(`${k}.heading`, vars),
    "",
    t(`${k}.body`, vars),
    "",
    `${t(`${k}.button`, vars)}: ${input.link}`,
    "",
    ...(has("expiry") ? [t(`${k}.expiry`, vars)] : []),
    t(`${k}.ignore`, vars),
    "",
    "--",
    t("mail.footer", vars),
    `${t("footer.privacy")}: ${brand.links.privacy}`,
    `${t("footer.terms")}: ${brand.links.terms}`,
  ].join("\n");
  const c = brand.colors;
  const h = (key: string) => t(key, vars, true);
  const link = escapeHtml(input.link);
  const html = `<!doctype html>
<html lang="${LANGUAGES[language].tag}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:${c.background};">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:${c.background};padding:24px 0;font-family:Arial,Helvetica,sans-serif;color:${c.text};">
<tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;width:100%;background:${c.surface};border:1px solid ${c.border};border-radius:12px;">
<tr><td style="padding:24px 32px 0;"><img src="${escapeHtml(logo)}" alt="${escapeHtml(brand.name)}" height="36" style="display:block;border:0;"></td></tr>
<tr><td style="padding:16px 32px 0;"><h1 style="font-size:22px;margin:0 0 12px;color:${c.text};">${h(`${k}.heading`)}</h1>
<p style="font-size:16px;line-height:24px;margin:0 0 24px;">${h(`${k}.body`)}</p>
<p style="margin:0 0 24px;"><a href="${link}" style="display:inline-block;background:${c.primary};color:${c.onPrimary};text-decoration:none;font-weight:bold;padding:12px 24px;border-radius:8px;">${h(`${k}.button`)}</a></p>
${has("fallback") ? `<p style="font-size:13px;line-height:20px;color:${c.muted};margin:0 0 8px;">${h(`${k}.fallback`)}<br><a href="${link}" style="color:${c.primary};word-break:break-all;">${link}</a></p>` : ""}
<p style="font-size:13px;line-height:20px;color:${c.muted};margin:0 0 24px;">${has("expiry") ? `${h(`${k}.expiry`)} ` : ""}${h(`${k}.ignore`)}</p></td></tr>
<tr><td style="padding:16px 32px 24px;border-top:1px solid ${c.border};font-size:12px;line-height:18px;color:${c.muted};">${h("mail.footer")}<br>
<a href="${escapeHtml(brand.links.privacy)}" style="color:${c.primary};">${h("footer.privacy")}</a> · <a href="${escapeHtml(brand.links.terms)}" style="color:${c.primary};">${h("footer.terms")}</a></td></tr>
</table></td></tr></table></body></html>`;
  return { subject, text, html };
}
