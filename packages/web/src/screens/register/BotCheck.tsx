import { LANGUAGES, type Language } from "@gatehouse/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import { RemoteBotCheck } from "./RemoteBotCheck.tsx";
import { type MountedWidget, whenMounted } from "./widget.ts";

declare global {
  namespace React.JSX {
    interface IntrinsicElements {
      "altcha-widget": Record<string, unknown>;
    }
  }
}

type Widget = HTMLElement & MountedWidget;

interface BotCheckProps {
  onToken: (token: string | undefined) => void;
  generation: number;
}

/** The bot check for visitors outside CN: our proof of work, or the third party the deployment configured. */
export function BotCheck(props: BotCheckProps) {
  const { settings } = useApp();
  const check = settings.botCheck;
  if (check.provider === "altcha") return <ProofOfWork {...props} />;
  return <RemoteBotCheck provider={check.provider} siteKey={check.siteKey} {...props} />;
}

/**
 * The proof-of-work bot check (ALTCHA). The widget loads on demand, speaks our catalogs'
 * words, and hands its solved token to the form. `generation` changes when the form wants a fresh check.
 */
function ProofOfWork({ onToken, generation }: BotCheckProps) {
  const { settings } = useApp();
  const { t, i18n } = useTranslation();
  const ref = useRef<Widget>(null);
  const [ready, setReady] = useState(false);
  const language = i18n.language as Language;
  const key = `gatehouse-${language}`;

  useEffect(() => {
    let alive = true;
    void import("altcha").then(() => {
      const registry = (
        globalThis as unknown as { $altcha?: { i18n: { set(k: string, v: Record<string, string>): void } } }
      ).$altcha;
      registry?.i18n.set(key, {
        label: t("botCheck.label"),
        verifying: t("botCheck.verifying"),
        verified: t("botCheck.verified"),
        error: t("botCheck.error"),
        expired: t("botCheck.expired"),
        verificationRequired: t("botCheck.required"),
        loading: t("app.loading"),
        reload: t("botCheck.reload"),
        verify: t("botCheck.verify"),
        waitAlert: t("botCheck.verifying"),
        footer: "",
        ariaLinkLabel: "",
        enterCode: "",
        enterCodeAria: "",
        getAudioChallenge: "",
      });
      if (alive) setReady(true);
    });
    return () => {
      alive = false;
    };
  }, [key, t]);

  useEffect(() => {
    const widget = ref.current;
    if (!ready || !widget) return;
    let live = true;
    void whenMounted(widget).then((mounted) => {
      if (live && mounted)
        widget.configure({ hideFooter: true, hideLogo: true, language: key, credentials: "include" });
    });
    const onState = (event: Event) => {
      const detail = (event as CustomEvent<{ state: string; payload?: string }>).detail;
      onToken(detail.state === "verified" ? detail.payload : undefined);
    };
    widget.addEventListener("statechange", onState);
    return () => {
      live = false;
      widget.removeEventListener("statechange", onState);
    };
  }, [ready, key, onToken]);

  useEffect(() => {
    const widget = ref.current;
    if (generation > 0 && widget) void whenMounted(widget).then((mounted) => mounted && widget.reset());
  }, [generation]);

  if (!ready) return <p>{t("app.loading")}</p>;
  return (
    <altcha-widget
      ref={ref}
      challenge={`${settings.gatewayUrl}/captcha/challenge`}
      auto="onload"
      language={key}
      lang={LANGUAGES[language].tag}
      name="botCheck"
    />
  );
}
