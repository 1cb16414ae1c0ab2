import { api } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { startTrial } from "../accounts/trials.ts";
import { requestBrand } from "../http/client.ts";
import { currentUser } from "../http/current-user.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import type { Services } from "../services.ts";

/**
 * Trials (issue #12). A trial-mode sign-in (routes/login.ts) and a trial sign-up's activation (routes/activation.ts)
 * start theirs; here a signed-in visitor confirms "Start your trial" (spec §2 trial flow, step 2).
 */
export async function trialRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;

  // A session call: CSRF-checked and refused while the session owes a step, like every account change.
  mount(app, api.trialStart, async (request) => {
    const user = await currentUser(db, request);
    const productCode = request.body.productCode ?? config.trialProductCode;
    const outcome = await startTrial(db, user, { productCode, brand: requestBrand(request, config) });
    if (!outcome.ok) throw new ApiError(outcome.refusal);
    return outcome.trial;
  });
}
