import type { Language } from "./languages.ts";

/** Spec §1: seven themes chosen by a host-page setting. Per-brand differences are data (STYLE.md §8). */
export const BRAND_IDS = ["default", "cloud", "archviz", "configurator", "engine", "assets", "cross"] as const;
export type BrandId = (typeof BRAND_IDS)[number];

export interface BrandColors {
  /** Buttons, links, focus ring. */
  readonly primary: string;
  /** Text on `primary`; contrast ≥ 4.5:1 (WCAG 1.4.3), pinned by a unit test. */
  readonly onPrimary: string;
  readonly background: string;
  readonly surface: string;
  readonly text: string;
  readonly muted: string;
  readonly border: string;
  readonly danger: string;
}

export interface BrandLinks {
  readonly home: string;
  readonly privacy: string;
  readonly terms: string;
  readonly licence: string;
  readonly support: string;
  /** The customer portal, where a newly set-up account continues (spec §4). */
  readonly portal: string;
  /** The brand's trial address (spec §2, §4), where a trial continues with `isNewAccount` and `productCode`. */
  readonly trial: string;
  /** Learning content for people who just activated a licence (issue #13: the studio's success button). */
  readonly learning: string;
  /** End-user licence agreement per language; English is required and is the fallback (spec §9). */
  readonly eula: Partial<Record<Language, string>> & { readonly en: string };
}

export interface Brand {
  readonly id: BrandId;
  readonly name: string;
  /** Served by the web app under /brands/. */
  readonly logo: string;
  readonly colors: BrandColors;
  /** Light or dark: for the browser's own controls and for third-party widgets (CSS color-scheme). */
  readonly colorScheme: "light" | "dark";
  readonly links: BrandLinks;
  /** Behaviour that differs by brand (spec §2). */
  readonly traits: {
    /** Login success page shows "Authentication complete" and the user. */
    readonly authenticationCompletePage: boolean;
    /** Edit profile hides the customer number. */
    readonly hideCustomerNumber: boolean;
    /** Reset password's button reads Recover instead of Update. */
    readonly resetButtonRecover: boolean;
    /** Activation success shows the richer welcome. */
    readonly richWelcome: boolean;
    /** Login shows the cloud-rendering promo cover ("Start with 20 free credits"). */
    readonly promoCover: boolean;
    /** The desktop-app pages name the brand's app, "return to Enscape" (spec §2: the Enscape wording). */
    readonly namesDesktopApp: boolean;
    /** Trial sign-ups and sign-ins say `isEnscapeTrial` rather than `isTrial` (spec §7). */
    readonly enscapeTrial: boolean;
  };
}

const plain = {
  authenticationCompletePage: false,
  hideCustomerNumber: false,
  resetButtonRecover: false,
  richWelcome: false,
  promoCover: false,
  namesDesktopApp: false,
  enscapeTrial: false,
} as const;

const legal = (site: string): BrandLinks => ({
  home: `https://${site}/`,
  privacy: `https://${site}/legal/privacy`,
  terms: `https://${site}/legal/terms`,
  licence: `https://${site}/legal/licence`,
  support: `https://support.${site.replace(/^www\./u, "")}/`,
  portal: `https://portal.${site.replace(/^www\./u, "")}/`,
  trial: `https://${site}/trial`,
  learning: `https://${site}/learn`,
  eula: {
    en: `https://${site}/legal/eula`,
    es: `https://${site}/es/legal/eula`,
    pt: `https://${site}/pt/legal/eula`,
    de: `https://${site}/de/legal/eula`,
    it: `https://${site}/it/legal/eula`,
    fr: `https://${site}/fr/legal/eula`,
    cn: `https://${site}/cn/legal/eula`,
    kr: `https://${site}/kr/legal/eula`,
    // Japanese has no EULA of its own: it falls back to English (spec §9).
  },
});

const neutral = {
  background: "#f5f6f8",
  surface: "#ffffff",
  text: "#1c1f24",
  muted: "#5b6270",
  border: "#c9ced6",
  danger: "#b3261e",
};

export const BRANDS: Readonly<Record<BrandId, Brand>> = {
  default: {
    id: "default",
    name: "Gatehouse",
    logo: "/brands/default.svg",
    colorScheme: "light",
    colors: { ...neutral, primary: "#1f4fd1", onPrimary: "#ffffff" },
    links: legal("www.gatehouse.example"),
    traits: plain,
  },
  cloud: {
    id: "cloud",
    name: "Cloud Render",
    logo: "/brands/cloud.svg",
    colorScheme: "light",
    colors: { ...neutral, primary: "#0b6e8a", onPrimary: "#ffffff", background: "#eef6f8" },
    links: legal("cloud.gatehouse.example"),
    traits: { ...plain, promoCover: true },
  },
  archviz: {
    id: "archviz",
    name: "Enscape",
    logo: "/brands/archviz.svg",
    colorScheme: "light",
    colors: { ...neutral, primary: "#8a3b12", onPrimary: "#ffffff", background: "#f7f3ef" },
    links: legal("www.archviz.example"),
    traits: {
      ...plain,
      authenticationCompletePage: true,
      hideCustomerNumber: true,
      resetButtonRecover: true,
      richWelcome: true,
      namesDesktopApp: true,
      enscapeTrial: true,
    },
  },
  configurator: {
    id: "configurator",
    name: "Configurator",
    logo: "/brands/configurator.svg",
    colorScheme: "light",
    colors: { ...neutral, primary: "#2e6b30", onPrimary: "#ffffff", background: "#f1f6f0" },
    links: legal("configurator.gatehouse.example"),
    traits: plain,
  },
  engine: {
    id: "engine",
    name: "Corona",
    logo: "/brands/engine.svg",
    colorScheme: "light",
    colors: { ...neutral, primary: "#a3122e", onPrimary: "#ffffff", background: "#f8f1f2" },
    links: legal("www.engine.example"),
    traits: plain,
  },
  assets: {
    id: "assets",
    name: "Cosmos",
    logo: "/brands/assets.svg",
    colorScheme: "light",
    colors: { ...neutral, primary: "#5b2a9e", onPrimary: "#ffffff", background: "#f4f1f9" },
    links: legal("cosmos.gatehouse.example"),
    traits: plain,
  },
  cross: {
    id: "cross",
    name: "Gatehouse Account",
    logo: "/brands/cross.svg",
    colorScheme: "dark",
    colors: {
      primary: "#7cc4ff",
      onPrimary: "#0b1a2b",
      background: "#0f1722",
      surface: "#182332",
      text: "#eef2f7",
      muted: "#a9b4c2",
      border: "#3a4a5e",
      danger: "#ff8a80",
    },
    links: legal("account.gatehouse.example"),
    traits: plain,
  },
};

export function isBrandId(value: unknown): value is BrandId {
  return typeof value === "string" && (BRAND_IDS as readonly string[]).includes(value);
}

/** The EULA in the visitor's language, else English (spec §9: the Japanese one falls back to English). */
export function eulaUrl(brand: Brand, language: Language): string {
  return brand.links.eula[language] ?? brand.links.eula.en;
}
