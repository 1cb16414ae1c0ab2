import type { ReactNode } from "react";
import { Trans } from "react-i18next";

/** A link whose words come from the translation (Trans fills them in). */
function TextLink({ href, children }: { href: string; children?: ReactNode }) {
  return <a href={href}>{children}</a>;
}

/**
 * The notice under a form that creates or opens an account: the brand's terms of use and privacy policy, linked, in
 * the notice's own words (`<terms>` and `<privacy>` in the catalog).
 */
export function PrivacyNotice({
  i18nKey,
  brand,
  className,
}: {
  i18nKey: "register.privacyNotice" | "corporateLogin.privacyNotice";
  brand: { name: string; links: { terms: string; privacy: string } };
  className?: string | undefined;
}) {
  return (
    <p className={className}>
      <Trans
        i18nKey={i18nKey}
        values={{ brand: brand.name }}
        components={{ terms: <TextLink href={brand.links.terms} />, privacy: <TextLink href={brand.links.privacy} /> }}
      />
    </p>
  );
}
