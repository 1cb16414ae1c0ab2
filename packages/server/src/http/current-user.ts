import type { FastifyRequest } from "fastify";
import type { Db } from "../store/db.ts";
import { usersStore } from "../store/users.ts";
import { ApiError } from "./errors.ts";
import { signedIn } from "./session.ts";

/** The signed-in user's row (the account call's session is there: mounted with `session: "required"`). */
export async function currentUser(db: Db, request: FastifyRequest) {
  const user = await usersStore.findById(db, signedIn(request).user_id);
  if (!user) throw new ApiError("not_authenticated");
  return user;
}
