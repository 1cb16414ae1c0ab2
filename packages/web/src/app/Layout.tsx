import { type BrandId, eulaUrl, LANGUAGE_CODES, LANGUAGES, type Language } from "@gatehouse/contract";
import { type ReactNode, useId } from "react";
import { useTranslation } from "react-i18next";
import { switchLanguage } from "../i18n/index.ts";
import { useApp } from "./context.tsx";
import styles from "./Layout.module.css";

/**
 * Each brand logo's own size, as its SVG declares it (a test keeps them equal): with width and height the browser
 * reserves the logo's box before the file arrives, so the page does not shift when it does (issue #9, CLS).
 */
export const LOGO_SIZES: Readonly<Record<BrandId, { width: number; height: number }>> = {
  default: { width: 169, height: 36 },
  cloud: { width: 207, height: 36 },
  archviz: { width: 144, height: 36 },
  configurator: { width: 207, height: 36 },
  engine: { width: 131, height: 36 },
  assets: { width: 131, height: 36 },
  cross: { width: 270, height: 36 },
};

/** The frame of every page: brand logo, the page's card (and an optional aside), legal links, language. */
export function Layout({ children, aside }: { children: ReactNode; aside?: ReactNode }) {
  const { brand } = useApp();
  const { t, i18n } = useTranslation();
  const languageId = useId();
  const language = i18n.language as Language;
  return (
    <div className={styles.page}>
      <a className={styles.skip} href="#main">
        {t("app.skipToContent")}
      </a>
      <header className={styles.header}>
        <a href={brand.links.home}>
          <img src={brand.logo} alt={brand.name} {...LOGO_SIZES[brand.id]} />
        </a>
      </header>
      <div className={styles.body}>
        <main id="main" className={styles.card}>
          {children}
        </main>
        {aside}
      </div>
      <footer className={styles.footer}>
        <a href={brand.links.privacy}>{t("footer.privacy")}</a>
        <a href={brand.links.terms}>{t("footer.terms")}</a>
        <a href={eulaUrl(brand, language)}>{t("footer.licence")}</a>
        <a href={brand.links.support}>{t("footer.support")}</a>
        <span className={styles.language}>
          <label htmlFor={languageId}>{t("app.language")}</label>
          <select id={languageId} value={language} onChange={(e) => void switchLanguage(e.target.value as Language)}>
            {LANGUAGE_CODES.map((code) => (
              <option key={code} value={code} lang={LANGUAGES[code].tag}>
                {LANGUAGES[code].name}
              </option>
            ))}
          </select>
        </span>
      </footer>
    </div>
  );
}
