import { type AnswerOf, api } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { checkEmail, checkPassword, registerAccount } from "../accounts/registration.ts";
import { inTrialMode } from "../accounts/trials.ts";
import { checkHuman } from "../captcha/human.ts";
import { generateCaptcha } from "../captcha/image.ts";
import { originOf, visitorCountry } from "../http/client.ts";
import { ApiError, passwordRefused } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import type { Services } from "../services.ts";

type BotChallenge = AnswerOf<typeof api.botChallenge>;

/** Registration (spec §7): field checks, the captcha or bot check, and sign-up. */
export async function registerRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { db, config } = services;

  // An existence oracle by nature (the UI must say "already connected"): limited per client address.
  mount(app, api.registerValidate, async (request) => {
    const body = request.body;
    // A password comes with what the form knows of its owner (the address, the names), as context only.
    if (body.password !== undefined) return checkPassword(body.password, body);
    if (body.email !== undefined) return checkEmail(db, body.email, config.corporateDomains);
    const field = (["firstName", "lastName", "countryCode"] as const).find((name) => body[name] !== undefined);
    const parsed = api.register.body.shape[field ?? "firstName"].safeParse(body[field ?? "firstName"]);
    if (!parsed.success) return { status: "invalid" as const, message: parsed.error.issues[0]?.message };
    return { status: "ok" as const };
  });

  mount(app, api.captcha, async (request) => {
    // Spec §7: the image captcha is for visitors located in CN only.
    if (visitorCountry(request, config) !== "CN") throw new ApiError("not_found");
    return generateCaptcha(db, { keepAnswerForTests: config.nodeEnv === "test" });
  });

  // altcha-lib's Challenge is the declared answer; its type only lacks the index signature of a loose object.
  mount(app, api.botChallenge, async () => (await services.proofOfWork.challenge()) as unknown as BotChallenge);

  mount(app, api.register, async (request) => {
    const body = request.body;
    const failure = await checkHuman(
      db,
      { country: visitorCountry(request, config), ...body },
      { proofOfWork: services.proofOfWork, remote: services.remoteBotCheck },
      request.ip,
    );
    if (failure === "captcha_incorrect") {
      throw new ApiError("captcha_incorrect", {
        fields: [{ field: "captchaAnswer", message: "errors.captcha_incorrect" }],
      });
    }
    if (failure) throw new ApiError("bot_check_failed");
    // A trial sign-up keeps the product it asked for, or today's default (issue #12): the activation starts that one.
    const productCode = inTrialMode(body) ? (body.productCode ?? services.config.trialProductCode) : undefined;
    const outcome = await registerAccount(db, { ...body, productCode }, originOf(request, services, body.returnTo));
    if (!outcome.ok && outcome.refusal !== "email_conflict") throw passwordRefused(outcome.refusal);
    if (!outcome.ok)
      throw new ApiError("email_conflict", { fields: [{ field: "email", message: "validation.email.conflict" }] });
    services.mail.kick();
    return {};
  });
}
