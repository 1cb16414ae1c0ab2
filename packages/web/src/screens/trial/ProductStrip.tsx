import { BRANDS, type BrandId } from "@gatehouse/contract";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Layout, LOGO_SIZES } from "../../app/Layout.tsx";
import styles from "./Trial.module.css";

/** The products a trial may be for (spec §2 "Trial flow": a products logo strip), as their brands' logos. */
export const TRIAL_PRODUCTS: readonly BrandId[] = ["cloud", "archviz", "configurator", "engine", "assets"];

/** The products logo strip: a labelled group holding a list of the logos, each named by its product. */
export function ProductStrip() {
  const { t } = useTranslation();
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of logos, not of form controls (what <fieldset> is for).
    <div role="group" aria-label={t("trial.products")} className={styles.products}>
      <ul>
        {TRIAL_PRODUCTS.map((id) => (
          <li key={id}>
            <img src={BRANDS[id].logo} alt={BRANDS[id].name} {...LOGO_SIZES[id]} loading="lazy" />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The frame of every trial screen: the app's layout with the products logo strip under the screen's content. */
export function TrialLayout({ children }: { children: ReactNode }) {
  return (
    <Layout>
      {children}
      <ProductStrip />
    </Layout>
  );
}
