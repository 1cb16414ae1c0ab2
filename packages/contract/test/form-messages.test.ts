import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod/mini";
import {
  ChangePasswordBody,
  englishCatalog,
  LoginBody,
  lookup,
  MARKETING_SOURCES,
  MarketingInfo,
  PLATFORMS,
  ProfileBody,
  RecoverBody,
  RegisterBody,
  ResetPasswordBody,
  ROLES,
} from "../src/index.ts";

/**
 * The web forms show the first issue's message through the catalogs (STYLE.md §4), in every language. Zod's own
 * default wording is English only (and the browser's zod/mini carries none: "Invalid input"), so every check a
 * person can fail by typing must name a catalog key.
 */
const typed = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ minLength: 60, maxLength: 400 }),
  fc.constantFrom("", " ", "Other", "de", "a@b", "😀".repeat(80), "+49 (0) 30 1234567".repeat(3)),
);
const choice = (options: readonly string[]) => fc.oneof(fc.constantFrom("", ...options), typed);

const FORMS = {
  login: { schema: LoginBody, fields: ["email", "password"] },
  register: { schema: RegisterBody, fields: ["email", "password", "firstName", "lastName", "countryCode"] },
  profile: { schema: ProfileBody, fields: ["firstName", "lastName", "countryCode"] },
  recover: { schema: RecoverBody, fields: ["email"] },
  reset: { schema: ResetPasswordBody, fields: ["password"] },
  change: { schema: ChangePasswordBody, fields: ["oldPassword", "password"] },
} as const;

function expectCatalogKeys(result: { success: boolean; error?: { issues: { message: string }[] } }) {
  for (const { message } of result.success ? [] : (result.error?.issues ?? [])) {
    expect(lookup(englishCatalog, message), message).toBeTypeOf("string");
  }
}

describe("every message a form can show is a catalog key", () => {
  for (const [name, { schema, fields }] of Object.entries(FORMS)) {
    it(`${name}: whatever is typed`, () => {
      // As the web form does: only the fields it shows, each holding whatever was typed.
      const form = z.pick(schema as z.ZodMiniObject, Object.fromEntries(fields.map((field) => [field, true])));
      const values = fc.record(Object.fromEntries(fields.map((field) => [field, typed])));
      fc.assert(fc.property(values, (value) => expectCatalogKeys(form.safeParse(value))));
    });
  }

  it("set-up survey: whatever is chosen and typed", () => {
    const survey = fc.record(
      {
        marketingSource: choice(MARKETING_SOURCES),
        marketingSourceOther: typed,
        platformOfInterest: choice(PLATFORMS),
        platformOfInterestOther: typed,
        role: choice(ROLES),
        roleOther: typed,
        phoneNumber: typed,
      },
      { requiredKeys: ["marketingSource", "platformOfInterest", "role"] },
    );
    fc.assert(fc.property(survey, (value) => expectCatalogKeys(MarketingInfo.safeParse(value))));
  });
});
