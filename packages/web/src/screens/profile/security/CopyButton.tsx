import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../../ui/Button.tsx";

/**
 * "Copy" for a setup key or the recovery codes: named for what it copies, and saying "Copied" (announced) once the
 * clipboard took it. A browser that refuses the clipboard leaves the text on the page to select by hand.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <>
      <Button variant="secondary" aria-label={label} onClick={copy}>
        {t("security.copy")}
      </Button>
      <span role="status">{copied ? t("security.copied") : ""}</span>
    </>
  );
}
