import type { api } from "@gatehouse/contract";
import type { z } from "zod";
import { COUNTRY_CODES } from "../countries.ts";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/schema.ts";
import { usersStore } from "../store/users.ts";

type Profile = z.infer<(typeof api.profile)["answer"]>;
type ProfileInput = z.output<(typeof api.updateProfile)["body"]>;

/** The profile as GET /account/profile answers it (spec §3 Profile). */
export function profileOf(user: UserRow): Profile {
  return {
    email: user.email,
    firstName: user.first_name,
    lastName: user.last_name,
    countryCode: user.country_code,
    customerNumber: user.customer_number ?? "",
    passwordAllowed: user.password_allowed === 1 && user.password_hash !== null,
  };
}

/**
 * PUT /account/profile: names and country only; e-mail, customer number and passwordAllowed are read-only and
 * ignored. A complete profile clears RequiredProfileUpdate (spec §4).
 */
export async function updateProfile(
  db: Db,
  user: UserRow,
  input: ProfileInput,
  now = Date.now(),
): Promise<{ ok: true; user: UserRow } | { ok: false; field: "countryCode" }> {
  if (!COUNTRY_CODES.has(input.countryCode)) return { ok: false, field: "countryCode" };
  const changes = {
    first_name: input.firstName,
    last_name: input.lastName,
    country_code: input.countryCode,
    required_profile_update: 0,
    updated_at: now,
  };
  await usersStore.update(db, user.id, changes);
  return { ok: true, user: { ...user, ...changes } };
}
