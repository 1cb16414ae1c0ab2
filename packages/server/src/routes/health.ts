import type { FastifyPluginAsync } from "fastify";
import { type Db, ping } from "../store/db.ts";

/** Liveness and readiness for load balancers and orchestrators. */
export const healthRoutes: FastifyPluginAsync<{ db: Db }> = async (app, { db }) => {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const ready = await ping(db);
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ok" : "unavailable" });
  });
};
