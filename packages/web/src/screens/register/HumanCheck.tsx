import { type ReactNode, useCallback, useState } from "react";
import { useT } from "../../ui/useT.ts";
import { BotCheck } from "./BotCheck.tsx";
import { Captcha } from "./Captcha.tsx";
import styles from "./Register.module.css";

/** What a registration call carries to prove a person sent it (spec §2: the captcha in CN, else the bot check). */
export type HumanProof = { captchaGUID: string; captchaAnswer: string } | { botCheck: string };

export interface HumanCheck {
  /** The proof for the call, or undefined with "please verify" shown when the bot check has not answered yet. */
  proof: () => HumanProof | undefined;
  /** Spec §4: on a failed registration the captcha (or bot check) starts again. */
  reset: () => void;
  /** Shows a refusal of the proof (`captcha_incorrect`, `bot_check_failed`) by the check; false for other codes. */
  refused: (code: string) => boolean;
  view: ReactNode;
}

/** The registration's human check (spec §2, §9): the captcha image for visitors in CN, the bot check elsewhere. */
export function useHumanCheck(inCN: boolean): HumanCheck {
  const tk = useT();
  const [botToken, setBotToken] = useState<string>();
  const [captcha, setCaptcha] = useState({ id: "", answer: "" });
  const [error, setError] = useState<string>();
  const [generation, setGeneration] = useState(0);

  const onToken = useCallback((token: string | undefined) => {
    setBotToken(token);
    if (token) setError(undefined);
  }, []);

  const proof = (): HumanProof | undefined => {
    setError(undefined);
    if (inCN) return { captchaGUID: captcha.id, captchaAnswer: captcha.answer };
    if (!botToken) return void setError("botCheck.required");
    return { botCheck: botToken };
  };

  const reset = () => {
    setBotToken(undefined);
    setGeneration((g) => g + 1);
  };

  const refused = (code: string) => {
    if (code !== "captcha_incorrect" && code !== "bot_check_failed") return false;
    setError(`errors.${code}`);
    return true;
  };

  const view = (
    <div className={styles.human}>
      {inCN ? (
        <Captcha answer={captcha.answer} onChange={setCaptcha} error={error} generation={generation} />
      ) : (
        <>
          <BotCheck onToken={onToken} generation={generation} />
          {error ? (
            <p role="alert" className={styles.hint}>
              {tk(error)}
            </p>
          ) : null}
        </>
      )}
    </div>
  );
  return { proof, reset, refused, view };
}

/**
 * Where a sign-up came from, as the registration call reports it (spec §7): the return address, the campaign's
 * utm_* parameters and the referring page.
 */
export function registrationContext(params: URLSearchParams, returnTo: string | null) {
  const utm = (name: string) => params.get(name) ?? undefined;
  return {
    returnTo: returnTo ?? undefined,
    utmMedium: utm("utm_medium"),
    utmSource: utm("utm_source"),
    utmCampaign: utm("utm_campaign"),
    httpReferer: document.referrer || undefined,
  };
}
