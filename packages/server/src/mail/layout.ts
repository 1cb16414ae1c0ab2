import { type Brand, LANGUAGES, type Language } from "@gatehouse/contract";
import { escapeHtml } from "../html.ts";
import type { MailLogo } from "./logos.ts";

/** A mail's words, already in the recipient's language (and escaped, for the HTML part). */
export interface MailContent {
  greeting: string;
  body: string;
  button: string;
  fallback: string | undefined;
  expiry: string | undefined;
  ignore: string;
  footer: string;
  privacy: string;
  terms: string;
}

/** What frames the words: the brand, the language, the mail's one link and the logo. */
export interface MailFrame {
  brand: Brand;
  language: Language;
  link: string;
  logo: MailLogo;
  logoUrl: string;
}

/** The standard signature separator (RFC 3676 §4.3): mail programs grey out or fold what follows. */
const SIGNATURE = "-- ";

/**
 * The plain-text part: the same words as the HTML. "Label: value" lines come from the catalog's `mail.labelled`,
 * so French gets its space before the colon and Chinese and Japanese their full-width colon.
 */
export function textMail(c: MailContent, f: MailFrame, labelled: (label: string, value: string) => string): string {
  return [
    c.greeting,
    "",
    c.body,
    "",
    labelled(c.button, f.link),
    "",
    ...(c.expiry ? [c.expiry] : []),
    c.ignore,
    "",
    SIGNATURE,
    c.footer,
    labelled(c.privacy, f.brand.links.privacy),
    labelled(c.terms, f.brand.links.terms),
  ].join("\n");
}

/**
 * The HTML part: one table-based layout with inline styles in the brand's colours, as mail programs need. The
 * content is escaped by the caller; the link and URLs are escaped here.
 */
export function htmlMail(c: MailContent, f: MailFrame & { subject: string }): string {
  const color = f.brand.colors;
  const link = escapeHtml(f.link);
  const small = `font-size:13px;line-height:20px;color:${color.muted};`;
  const fallback = c.fallback
    ? `<p style="${small}margin:0 0 8px;">${c.fallback}<br><a href="${link}" style="color:${color.primary};word-break:break-all;">${link}</a></p>`
    : "";
  return `<!doctype html>
<html lang="${LANGUAGES[f.language].tag}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(f.subject)}</title></head>
<body style="margin:0;padding:0;background:${color.background};">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:${color.background};padding:24px 0;font-family:Arial,Helvetica,sans-serif;color:${color.text};">
<tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;width:100%;background:${color.surface};border:1px solid ${color.border};border-radius:12px;">
<tr><td style="padding:24px 32px 0;"><img src="${escapeHtml(f.logoUrl)}" alt="${escapeHtml(f.brand.name)}" width="${f.logo.width}" height="${f.logo.height}" style="display:block;border:0;"></td></tr>
<tr><td style="padding:16px 32px 0;"><h1 style="font-size:22px;margin:0 0 12px;color:${color.text};">${c.greeting}</h1>
<p style="font-size:16px;line-height:24px;margin:0 0 24px;">${c.body}</p>
<p style="margin:0 0 24px;"><a href="${link}" style="display:inline-block;background:${color.primary};color:${color.onPrimary};text-decoration:none;font-weight:bold;padding:12px 24px;border-radius:8px;">${c.button}</a></p>
${fallback}
<p style="${small}margin:0 0 24px;">${c.expiry ? `${c.expiry} ` : ""}${c.ignore}</p></td></tr>
<tr><td style="padding:16px 32px 24px;border-top:1px solid ${color.border};font-size:12px;line-height:18px;color:${color.muted};">${c.footer}<br>
<a href="${escapeHtml(f.brand.links.privacy)}" style="color:${color.primary};">${c.privacy}</a> · <a href="${escapeHtml(f.brand.links.terms)}" style="color:${color.primary};">${c.terms}</a></td></tr>
</table></td></tr></table></body></html>`;
}
