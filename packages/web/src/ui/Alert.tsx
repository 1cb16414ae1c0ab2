import type { ReactNode } from "react";
import styles from "./Alert.module.css";

/** An announced message: errors interrupt (role=alert), confirmations wait their turn (role=status). */
export function Alert({ kind, children }: { kind: "error" | "success" | "info"; children: ReactNode }) {
  return (
    <div className={`${styles.alert} ${styles[kind]}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}
