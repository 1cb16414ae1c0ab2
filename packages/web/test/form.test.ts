import { LoginBody, MarketingInfo, ProfileBody } from "@gatehouse/contract";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod/mini";
import {
  type FieldElement,
  firstInDocumentOrder,
  getPath,
  issuesToErrors,
  setPath,
  validatesOn,
} from "../src/ui/form/rules.ts";
import { createFormStore } from "../src/ui/form/store.ts";

/**
 * The form hook that replaced react-hook-form (issue #9). The web project runs in Node without a DOM, so the
 * fields here are small stand-ins with the few members the form touches; the e2e suite drives the real pages.
 */
const elements: FakeField[] = [];
type FakeField = {
  type: string;
  value: string;
  checked: boolean;
  isConnected: boolean;
  focus: ReturnType<typeof vi.fn>;
  compareDocumentPosition(other: FakeField): number;
};
/** A stand-in field; fields come in page order in the order they are made. */
function field(value = "", type = "text"): FieldElement {
  const element: FakeField = {
    type,
    value,
    checked: false,
    isConnected: true,
    focus: vi.fn(),
    compareDocumentPosition: (other) => (elements.indexOf(other) > elements.indexOf(element) ? 4 : 2),
  };
  elements.push(element);
  return element as unknown as FieldElement;
}
const focusOf = (element: FieldElement) => (element as unknown as FakeField).focus;

const Login = z.pick(LoginBody, { email: true, password: true });
const Survey = z.object({ marketingInfo: MarketingInfo });

/** A store with fields mounted the way React mounts them: ref, then the events the person causes. */
function loginForm() {
  const store = createFormStore(Login);
  const email = field();
  const password = field();
  const props = { email: store.form.register("email"), password: store.form.register("password") };
  props.email.ref(email);
  props.password.ref(password);
  const type = (name: "email" | "password", element: FieldElement, value: string) => {
    element.value = value;
    props[name].onChange({ target: element });
  };
  const blur = (name: "email" | "password", element: FieldElement) => props[name].onBlur({ target: element });
  return { store, form: store.form, email, password, type, blur };
}

describe("form rules", () => {
  it("maps each issue to its field by dotted path, the first issue of a field winning", () => {
    const errors = issuesToErrors([
      { path: ["email"], message: "validation.email.required", code: "too_small" },
      { path: ["email"], message: "validation.email.invalid", code: "custom" },
      { path: ["marketingInfo", "roleOther"], message: "validation.required" },
    ]);
    expect(errors).toEqual({
      email: { message: "validation.email.required", type: "too_small" },
      "marketingInfo.roleOther": { message: "validation.required", type: undefined },
    });
  });

  it("validates on blur first, then on every change once touched; after a submit on change only", () => {
    expect(validatesOn("change", false, false)).toBe(false);
    expect(validatesOn("blur", false, false)).toBe(true);
    expect(validatesOn("blur", false, false, false)).toBe(false);
    expect(validatesOn("change", true, false)).toBe(true);
    expect(validatesOn("blur", true, false)).toBe(true);
    expect(validatesOn("change", false, true)).toBe(true);
    expect(validatesOn("blur", true, true)).toBe(false);
  });

  it("reads and writes nested values by dotted name", () => {
    const values: Record<string, unknown> = {};
    setPath(values, "marketingInfo.role", "Other");
    setPath(values, "marketingInfo.roleOther", "Pilot");
    expect(values).toEqual({ marketingInfo: { role: "Other", roleOther: "Pilot" } });
    expect(getPath(values, "marketingInfo.role")).toBe("Other");
    expect(getPath(values, "password.length")).toBeUndefined();
  });

  it("finds the element that comes first in the page, whatever order it is given in", () => {
    const [a, b, c] = [field(), field(), field()];
    expect(firstInDocumentOrder([c, a, b])).toBe(a);
    expect(firstInDocumentOrder([])).toBeUndefined();
  });
});

describe("the form store", () => {
  it("shows no error while typing, then the field's first issue on blur, then follows every change", () => {
    const { form, email, type, blur } = loginForm();
    type("email", email, "a");
    type("email", email, "");
    expect(form.formState.errors.email).toBeUndefined();
    blur("email", email);
    expect(form.formState.errors.email?.message).toBe("validation.loginEmail.required");
    expect(form.formState.errors.password).toBeUndefined();
    type("email", email, "ann@example.com");
    expect(form.formState.errors.email).toBeUndefined();
  });

  it("shows no error for a field only passed through, before the submit (issue #25)", async () => {
    const { form, email, password, type, blur } = loginForm();
    blur("email", email);
    expect(form.formState.errors.email).toBeUndefined();
    type("password", password, "12345");
    blur("password", password);
    expect(form.formState.errors.password?.message).toBeDefined();
    await form.handleSubmit(vi.fn())();
    expect(form.formState.errors.email?.message).toBe("validation.loginEmail.required");
  });

  it("hands the PARSED values to the submit handler (the contract's transforms applied)", async () => {
    const store = createFormStore(z.pick(ProfileBody, { firstName: true }));
    const input = field();
    const props = store.form.register("firstName");
    props.ref(input);
    input.value = "  Ann   Lee ";
    props.onChange({ target: input });
    const onValid = vi.fn();
    await store.form.handleSubmit(onValid)();
    expect(onValid).toHaveBeenCalledWith({ firstName: "Ann Lee" });
  });

  it("on an invalid submit, calls no handler, shows every field's error and focuses the first in the page", async () => {
    const { form, email, password, type } = loginForm();
    type("password", password, "");
    const onValid = vi.fn();
    const prevented = vi.fn();
    await form.handleSubmit(onValid)({ preventDefault: prevented });
    expect(prevented).toHaveBeenCalled();
    expect(onValid).not.toHaveBeenCalled();
    expect(Object.keys(form.formState.errors).sort()).toEqual(["email", "password"]);
    expect(focusOf(email)).toHaveBeenCalled();
    expect(focusOf(password)).not.toHaveBeenCalled();
    expect(form.formState.isSubmitted).toBe(true);
  });

  it("after a submit attempt re-validates an untouched field on change", async () => {
    const { form, password, type } = loginForm();
    await form.handleSubmit(vi.fn())();
    expect(form.formState.errors.password).toBeDefined();
    type("password", password, "secret");
    expect(form.formState.errors.password).toBeUndefined();
  });

  it("is submitting while the handler runs, and not after it, even when it throws", async () => {
    const { form, email, password, type } = loginForm();
    type("email", email, "ann@example.com");
    type("password", password, "secret");
    let during = false;
    const submit = form.handleSubmit(async () => {
      during = form.formState.isSubmitting;
      throw new Error("boom");
    });
    await expect(submit()).rejects.toThrow("boom");
    expect(during).toBe(true);
    expect(form.formState.isSubmitting).toBe(false);
  });

  it("keeps a server error until the field changes, and focuses the field when asked", () => {
    const { form, email, password, type, blur } = loginForm();
    type("email", email, "ann@example.com");
    blur("email", email);
    form.setError("password", { message: "errors.invalid_authentication" }, { shouldFocus: true });
    expect(form.formState.errors.password?.message).toBe("errors.invalid_authentication");
    expect(focusOf(password)).toHaveBeenCalled();
    blur("email", email);
    expect(form.formState.errors.password?.message).toBe("errors.invalid_authentication");
    blur("password", password);
    type("password", password, "secret");
    expect(form.formState.errors.password).toBeUndefined();
  });

  it("triggers only the named fields and says whether they are valid", async () => {
    const { form, email, type } = loginForm();
    type("email", email, "ann@example.com");
    expect(await form.trigger("email")).toBe(true);
    expect(await form.trigger(["email", "password"])).toBe(false);
    expect(Object.keys(form.formState.errors)).toEqual(["password"]);
  });

  it("keeps a field's value while its element is away and shows it again when it comes back", () => {
    const { store, form, email, type } = loginForm();
    type("email", email, "ann@example.com");
    const ref = store.form.register("email").ref;
    ref(null);
    const again = field();
    ref(again);
    expect(again.value).toBe("ann@example.com");
    expect(form.getValues("email")).toBe("ann@example.com");
  });

  it("writes set and reset values into the fields, and knows when a value differs from its start", () => {
    const { form, email, type } = loginForm();
    expect(form.formState.isDirty).toBe(false);
    type("email", email, "ann@example.com");
    expect(form.formState.isDirty).toBe(true);
    form.setValue("email", "bob@example.com");
    expect(email.value).toBe("bob@example.com");
    form.reset({ email: "bob@example.com", password: "" });
    expect(form.formState.isDirty).toBe(false);
    expect(form.formState.isSubmitted).toBe(false);
  });

  it("shows a value it already had when set again (a select whose options arrive after it mounts)", () => {
    const store = createFormStore(z.object({ countryCode: z.string() }), { countryCode: "NL" });
    const select = field();
    store.form.register("countryCode").ref(select);
    select.value = ""; // what a select without that option shows
    store.form.setValue("countryCode", "NL");
    expect(select.value).toBe("NL");
  });

  it("keeps a checkbox's checked state as a boolean", () => {
    const store = createFormStore(z.object({ news: z.boolean() }));
    const box = field("on", "checkbox");
    const props = store.form.register("news");
    props.ref(box);
    expect(store.form.getValues("news")).toBe(false);
    (box as unknown as FakeField).checked = true;
    props.onChange({ target: box });
    expect(store.form.getValues("news")).toBe(true);
  });

  it("names nested errors by dotted path, as the survey's Other texts need", async () => {
    const store = createFormStore(Survey);
    for (const [name, value] of [
      ["marketingInfo.marketingSource", "Other"],
      ["marketingInfo.marketingSourceOther", ""],
      ["marketingInfo.platformOfInterest", ""],
      ["marketingInfo.role", ""],
    ] as const) {
      store.form.register(name).ref(field(value));
    }
    await store.form.handleSubmit(vi.fn())();
    const errors = store.form.formState.errors;
    expect(errors["marketingInfo.platformOfInterest"]?.message).toBe("validation.required");
    expect(store.form.watch("marketingInfo")?.marketingSource).toBe("Other");
  });

  it("renders again on every change it makes", () => {
    const { store, email, type } = loginForm();
    const listener = vi.fn();
    store.subscribe(listener);
    const before = store.version();
    type("email", email, "a");
    expect(listener).toHaveBeenCalled();
    expect(store.version()).toBeGreaterThan(before);
  });
});
