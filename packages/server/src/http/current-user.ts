import type { FastifyRequest } from "fastify";
import type { Db } from "../store/db.ts";
import { usersStore } from "../store/users.ts";
import { ApiError } from "./errors.ts";
import { accountIdOf } from "./session.ts";

/**
 * The account of an account call: the signed-in user's row (mounted with `session: "required"`), or the sign-in
 * attempt's for the call of the step it owes (issue #24).
 */
export async function currentUser(db: Db, request: FastifyRequest) {
  const user = await usersStore.findById(db, accountIdOf(request));
  if (!user) throw new ApiError("not_authenticated");
  return user;
}
