import { LANGUAGES, type Language, REMOTE_BOT_CHECKS, type RemoteBotCheckProvider } from "@gatehouse/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useApp } from "../../app/context.tsx";
import styles from "./Register.module.css";

/** What Turnstile (`turnstile`) and reCAPTCHA v2 (`grecaptcha`) have in common for explicit rendering. */
interface WidgetApi {
  render(container: HTMLElement, options: Record<string, unknown>): string | number;
  reset(id: string | number): void;
  remove?(id: string | number): void;
}

const GLOBALS: Record<RemoteBotCheckProvider, "turnstile" | "grecaptcha"> = {
  turnstile: "turnstile",
  recaptcha: "grecaptcha",
};
const ONLOAD = "gatehouseBotCheckLoaded";
let loading: Promise<WidgetApi> | undefined;

/** Loads the provider's script once per page; both call `onload` when their API is ready for explicit rendering. */
function loadApi(provider: RemoteBotCheckProvider, tag: string): Promise<WidgetApi> {
  loading ??= new Promise<WidgetApi>((resolve, reject) => {
    const host = globalThis as unknown as Record<string, unknown>;
    host[ONLOAD] = () => resolve(host[GLOBALS[provider]] as WidgetApi);
    const script = document.createElement("script");
    const language = provider === "recaptcha" ? `&hl=${encodeURIComponent(tag)}` : "";
    script.src = `${REMOTE_BOT_CHECKS[provider].script}&onload=${ONLOAD}${language}`;
    script.async = true;
    script.onerror = () => {
      loading = undefined;
      reject(new Error(`the ${provider} script did not load`));
    };
    document.head.append(script);
  });
  return loading;
}

/**
 * Cloudflare Turnstile or Google reCAPTCHA, when the deployment configures one instead of our proof of work. The
 * provider draws its widget in a frame inside a group named like our own check; its token goes to the form, and
 * an expired or failed check takes the token back. `generation` changes when the form wants a fresh check.
 */
export function RemoteBotCheck({
  provider,
  siteKey,
  onToken,
  generation,
}: {
  provider: RemoteBotCheckProvider;
  siteKey: string;
  onToken: (token: string | undefined) => void;
  generation: number;
}) {
  const { t, i18n } = useTranslation();
  const colorScheme = useApp().brand.colorScheme;
  const container = useRef<HTMLDivElement>(null);
  const widget = useRef<{ api: WidgetApi; id: string | number }>(undefined);
  const [failed, setFailed] = useState(false);
  const tag = LANGUAGES[i18n.language as Language].tag;

  useEffect(() => {
    let alive = true;
    loadApi(provider, tag).then(
      (api) => {
        const element = container.current;
        if (!alive || !element) return;
        const id = api.render(element, {
          sitekey: siteKey,
          // Both providers draw a light or a dark widget; the brand says which.
          theme: colorScheme,
          callback: (token: string) => {
            setFailed(false);
            onToken(token);
          },
          "expired-callback": () => onToken(undefined),
          "error-callback": () => {
            setFailed(true);
            onToken(undefined);
          },
          // Turnstile takes the language per widget; reCAPTCHA took it with its script (`hl`).
          ...(provider === "turnstile" ? { language: tag.toLowerCase() } : {}),
        });
        widget.current = { api, id };
      },
      () => alive && setFailed(true),
    );
    return () => {
      alive = false;
      const current = widget.current;
      widget.current = undefined;
      if (current?.api.remove) current.api.remove(current.id);
      else container.current?.replaceChildren();
    };
  }, [provider, siteKey, tag, colorScheme, onToken]);

  useEffect(() => {
    const current = widget.current;
    if (generation > 0 && current) {
      current.api.reset(current.id);
      onToken(undefined);
    }
  }, [generation, onToken]);

  return (
    <fieldset className={styles.remoteCheck} aria-label={t("botCheck.label")}>
      <div ref={container} />
      {failed ? <p role="alert">{t("botCheck.error")}</p> : null}
    </fieldset>
  );
}
