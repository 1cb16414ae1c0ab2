import { api, BRANDS } from "@gatehouse/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  type CeremonyPurpose,
  defaultPasskeyName,
  PASSKEY_AMR,
  registerPasskey,
  registrationOptions,
  removePasskey,
  renamePasskey,
  requestOptions,
  rpIdOf,
  summaryOf,
  verifyAssertion,
} from "../factors/passkeys.ts";
import { refreshSession } from "../factors/step-up.ts";
import { requestBrand, requestSite } from "../http/client.ts";
import { ApiError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { clientMeta } from "../http/session.ts";
import { destinationOf, handOver, nextContextOf, signInBrowser, signingInBrowser } from "../http/sign-in.ts";
import type { Services } from "../services.ts";
import { stepDone } from "../signin/attempt.ts";
import { proofOf } from "../signin/proofs.ts";

/** The signed-in session of an account call (the mount's session rule let only those through). */
function sessionOf(request: FastifyRequest): NonNullable<FastifyRequest["session"]["user"]> {
  const session = request.session.user;
  if (!session) throw new ApiError("not_authenticated");
  return session;
}

/** Passkeys (issue #26): the account's list (managed here), and sign-in, second factor and step-up with one. */
export async function passkeyRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;
  const actorOf = (request: FastifyRequest) => ({
    client: clientMeta(request),
    site: requestSite(request, config),
    sessionSecret: config.sessionSecret,
  });

  mount(app, api.passkeyRegistrationOptions, async (request) => {
    const session = sessionOf(request);
    return registrationOptions(db, {
      browserToken: request.session.token,
      rpId: rpIdOf(config, request.hostname),
      rpName: BRANDS[requestBrand(request, config)].name,
      account: {
        id: session.user_id,
        email: session.email,
        displayName: `${session.first_name} ${session.last_name}`.trim(),
      },
    });
  });

  mount(app, api.passkeyRegister, async (request, reply) => {
    const session = sessionOf(request);
    const registered = await registerPasskey(
      db,
      config,
      {
        browserToken: request.session.token,
        rpId: rpIdOf(config, request.hostname),
        userId: session.user_id,
        name: request.body.name ?? defaultPasskeyName(clientMeta(request).userAgent),
        response: request.body.response,
      },
      actorOf(request),
    );
    if (!registered.ok) throw new ApiError("passkey_invalid");
    // Confirming a passkey is a proof of it in this session (a later step-up within STEP_UP_MS needs no other).
    await refreshSession(db, session, PASSKEY_AMR);
    reply.header("cache-control", "no-store");
    const { recoveryCodes } = registered;
    return { passkey: summaryOf(registered.passkey), ...(recoveryCodes ? { recoveryCodes } : {}) };
  });

  mount(app, api.passkeyRename, async (request) => {
    const renamed = await renamePasskey(db, sessionOf(request).user_id, request.params.id, request.body.name);
    if (!renamed) throw new ApiError("not_found");
    return renamed;
  });

  mount(app, api.passkeyRemove, async (request) => {
    const removed = await removePasskey(db, sessionOf(request).user_id, request.params.id, actorOf(request));
    if (!removed) throw new ApiError("not_found");
    return {};
  });

  mount(app, api.passkeyOptions, async (request) => {
    const { purpose, userId } = await ceremonyOf(app, request, request.body.purpose);
    return requestOptions(db, {
      browserToken: request.session.token,
      rpId: rpIdOf(config, request.hostname),
      purpose,
      userId,
    });
  });

  mount(app, api.passkeySignIn, async (request, reply) => {
    const ceremony = await ceremonyOf(app, request, request.body.purpose);
    const asserted = await verifyAssertion(
      db,
      config,
      {
        browserToken: request.session.token,
        rpId: rpIdOf(config, request.hostname),
        purpose: ceremony.purpose,
        response: request.body.response,
      },
      clientMeta(request),
    );
    // One answer for every refusal: unknown, another account's, bad signature, no user verification, a replay.
    if (!asserted.ok || (ceremony.userId !== null && asserted.user.id !== ceremony.userId))
      throw new ApiError("passkey_invalid");
    if (ceremony.purpose === "reauthenticate") {
      return { freshUntil: await refreshSession(db, sessionOf(request), asserted.amr) };
    }
    if (ceremony.purpose === "second_factor") return secondFactorDone(app, services, { request, reply }, asserted);
    const proof = { ...proofOf(asserted.user, "passkey"), amr: asserted.amr };
    const destination = destinationOf(request, config, request.body.returnTo);
    return { next: await signInBrowser(app, db, config, { request, reply }, proof, destination) };
  });
}

/**
 * What a passkey ceremony of this browser is for: a signed-in person's step-up when asked, the second factor when the
 * browser's sign-in attempt owes it (that account's passkeys only), else a usernameless sign-in.
 */
async function ceremonyOf(
  app: FastifyInstance,
  request: FastifyRequest,
  asked: "sign_in" | "reauthenticate" | undefined,
): Promise<{ purpose: CeremonyPurpose; userId: string | null }> {
  if (asked === "reauthenticate") return { purpose: "reauthenticate", userId: sessionOf(request).user_id };
  const attempt = await app.attemptOf(request);
  if (attempt?.owes === "second_factor") return { purpose: "second_factor", userId: attempt.user_id };
  return { purpose: "sign_in", userId: null };
}

/** The passkey was the second factor the browser's attempt owed: the core moves the attempt on. */
async function secondFactorDone(
  app: FastifyInstance,
  { db, config }: Services,
  exchange: { request: FastifyRequest; reply: FastifyReply },
  asserted: Extract<Awaited<ReturnType<typeof verifyAssertion>>, { ok: true }>,
) {
  const { request } = exchange;
  const attempt = await app.attemptOf(request);
  if (!attempt || attempt.user_id !== asserted.user.id) throw new ApiError("passkey_invalid");
  const browser = await signingInBrowser(app, config, request, asserted.user);
  const context = nextContextOf(request, config);
  const outcome = await stepDone(
    db,
    attempt,
    "second_factor",
    asserted.user,
    browser,
    context,
    Date.now(),
    asserted.amr,
  );
  if (!outcome.ok) throw new ApiError(outcome.refusal.code);
  if (outcome.session) handOver(app, exchange, outcome.session, asserted.user, browser);
  return { next: outcome.next };
}
