import { api } from "@gatehouse/contract";
import { useEffect, useState } from "react";
import { gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";

export type CodeCheck = { state: "validating" } | { state: "valid" } | { state: "invalid"; reason: string };

const REASON = { invalid: "errors.code_invalid", expired: "errors.code_expired", used: "errors.code_used" } as const;

/** Spec §4: reset and set-up first run a validating state on the code, leading to valid or an error. */
export function useCodeCheck(code: string | null): CodeCheck {
  const fail = useScreenFailure();
  const [check, setCheck] = useState<CodeCheck>(
    code ? { state: "validating" } : { state: "invalid", reason: "errors.code_invalid" },
  );
  useEffect(() => {
    if (!code) return;
    gateway()
      .call(api.recoverStatus, { params: { code } })
      .then(
        ({ status }) =>
          setCheck(status === "valid" ? { state: "valid" } : { state: "invalid", reason: REASON[status] }),
        (error: unknown) =>
          isScreenFailure(error) ? fail(error) : setCheck({ state: "invalid", reason: "errors.code_invalid" }),
      );
  }, [code, fail]);
  return check;
}
