import { api } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import { forumSignIn } from "../forum/connect.ts";
import { sendError } from "../http/errors.ts";
import { mount } from "../http/mount.ts";
import { clientMeta } from "../http/session.ts";
import type { Services } from "../services.ts";

/**
 * `GET /api/discourse/sso?sso=…&sig=…` (spec §7, issue #13): the forum's DiscourseConnect request, answered with
 * `{loginUrl}`, the forum's return address carrying our signed answer. The web page /discourse/login calls it
 * with its query as it came, and sends a visitor (401) to sign in and back.
 */
export async function discourseRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { config, db } = services;

  mount(app, api.discourseSso, async (request, reply) => {
    const forum = config.discourse;
    if (!forum) return sendError(reply, "discourse_not_configured");
    // The answer carries a signed sign-in for the forum: no cache may keep it (ASVS 14.3.2).
    reply.header("cache-control", "no-store");
    const outcome = await forumSignIn(db, forum, request.query, request.session.user, clientMeta(request));
    if (!outcome.ok) return sendError(reply, outcome.refusal);
    return { loginUrl: outcome.loginUrl };
  });
}
