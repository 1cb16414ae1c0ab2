import { api, RegisterBody } from "@gatehouse/contract";
import { useRef, useState } from "react";
import { z } from "zod/mini";
import { gateway, isScreenFailure } from "../../api/index.ts";
import { useScreenFailure } from "../../app/failure.tsx";
import type { FormApi } from "../../ui/form/useForm.ts";

/** The registration form's fields, validated with the contract's rules. */
export const RegisterForm = z.pick(RegisterBody, {
  email: true,
  password: true,
  firstName: true,
  lastName: true,
  countryCode: true,
  newsletterSubscription: true,
});
export type RegisterInput = {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  countryCode: string;
  newsletterSubscription: boolean;
};
export const STEP_FIELDS = { 1: ["email", "password"], 2: ["firstName", "lastName", "countryCode"] } as const;
export type EmailCheck = "idle" | "checking" | "ok" | "conflict" | "corporate";

/** What the server says about step 1's fields before step 2 (`POST /account/register/validate`). */
export function useServerChecks(form: FormApi<typeof RegisterForm>) {
  const fail = useScreenFailure();
  const [emailCheck, setEmailCheck] = useState<EmailCheck>("idle");

  const pending = useRef<Promise<EmailCheck>>(undefined);

  /** Spec §5: the e-mail is checked on blur, by the server too (taken, invalid, corporate). */
  const checkEmail = (value: string): Promise<EmailCheck> => {
    const run = emailVerdict(value);
    pending.current = run;
    void run.finally(() => {
      if (pending.current === run) pending.current = undefined;
    });
    return run;
  };

  const emailVerdict = async (value: string): Promise<EmailCheck> => {
    const settle = (check: EmailCheck) => {
      setEmailCheck(check);
      return check;
    };
    // Issue #25: an empty field passed through is not checked yet (the form's own rules say when it shows an error).
    if (!value.trim()) return settle("idle");
    if (!(await form.trigger("email"))) return settle("idle");
    setEmailCheck("checking");
    try {
      const answer = await gateway().call(api.registerValidate, { body: { email: value } });
      // An answer about an address the person has since changed says nothing about the one in the field.
      if (form.getValues("email") !== value) return "idle";
      if (answer.status === "conflict") {
        form.setError("email", { type: "server", message: "validation.email.conflict" });
        return settle("conflict");
      }
      if (answer.status === "invalid") {
        form.setError("email", { type: "server", message: answer.message ?? "validation.email.invalid" });
        return settle("idle");
      }
      return settle(answer.corporate ? "corporate" : "ok");
    } catch (error) {
      if (isScreenFailure(error)) fail(error);
      return settle("idle");
    }
  };

  /**
   * What the address's check says once it has answered: Continue pressed (or Enter typed) while the check is
   * under way waits for it, rather than being refused by a disabled button and lost.
   */
  const emailChecked = (current: EmailCheck): Promise<EmailCheck> => pending.current ?? Promise.resolve(current);

  /**
   * The rules only the server knows (a common password, say) before step 2, shown on the field as the
   * registration call would; silent when the check cannot be made, since registration checks again.
   */
  const passwordRefused = async (value: string): Promise<boolean> => {
    try {
      // The address goes along as context: a password built on it is refused too (the server's policy).
      const email = form.getValues("email");
      const answer = await gateway().call(api.registerValidate, { body: { password: value, email } });
      if (answer.status !== "invalid") return false;
      const message = answer.message ?? "errors.common_password";
      form.setError("password", { type: "server", message }, { shouldFocus: true });
      return true;
    } catch {
      return false;
    }
  };

  return { emailCheck, setEmailCheck, checkEmail, emailChecked, passwordRefused };
}
