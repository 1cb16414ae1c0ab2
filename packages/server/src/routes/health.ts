import type { FastifyPluginAsync } from "fastify";
/** Liveness and readiness for load balancers and orchestrators; `ready` asks the database (app.ts passes it). */
export const healthRoutes: FastifyPluginAsync<{ ready: () => Promise<boolean> }> = async (app, { ready: isReady }) => {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const ready = await isReady();
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ok" : "unavailable" });
  });
};
