import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import styles from "./Alert.module.css";
import { JapaneseLines } from "./japanese-lines.tsx";

/** An announced message: errors interrupt (role=alert), confirmations wait their turn (role=status). */
export function Alert({ kind, children }: { kind: "error" | "success" | "info"; children: ReactNode }) {
  const { i18n } = useTranslation();
  const text =
    i18n.language === "jp" && typeof children === "string" ? (
      <JapaneseLines text={children} className={styles.japanese ?? ""} />
    ) : (
      children
    );
  return (
    <div className={`${styles.alert} ${styles[kind]}`} role={kind === "error" ? "alert" : "status"}>
      {text}
    </div>
  );
}
