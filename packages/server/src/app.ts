import fastifyCookie from "@fastify/cookie";
import fastifyFormbody from "@fastify/formbody";
import fastifyHelmet from "@fastify/helmet";
import fastifyRateLimit from "@fastify/rate-limit";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { dummyHash } from "./accounts/passwords.ts";
import { sweepThrottle } from "./accounts/throttle.ts";
import type { Config } from "./config.ts";
import { ApiError, registerErrorHandling } from "./http/errors.ts";
import { registerHostPage } from "./http/host-page.ts";
import { sessionPlugin } from "./http/session.ts";
import { countryRoutes } from "./routes/countries.ts";
import { healthRoutes } from "./routes/health.ts";
import { loginRoutes } from "./routes/login.ts";
import { sessionRoutes } from "./routes/session.ts";
import { sweepSessions } from "./sessions/sessions.ts";
import { type Db, type DbKind, migrate, openDatabase } from "./store/db.ts";

export type App = FastifyInstance & { db: Db; dbKind: DbKind };

const SWEEP_EVERY_MS = 10 * 60 * 1000;

/** Builds the whole gateway: database (migrated), plugins, routes and the SPA host page. */
export async function buildApp(
  config: Config,
  options: { logger?: boolean; logStream?: NodeJS.WritableStream } = {},
): Promise<App> {
  const { db, kind } = openDatabase(config.databaseUrl);
  await migrate(db);
  await dummyHash();

  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : { level: config.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    trustProxy: config.trustProxy,
    bodyLimit: 64 * 1024,
  }).withTypeProvider<ZodTypeProvider>();
  // Only JSON and form bodies are accepted; anything else is 415.
  app.removeContentTypeParser("text/plain");
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate("db", db);
  app.decorate("dbKind", kind);

  registerErrorHandling(app);
  await app.register(fastifyCookie);
  await app.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
  await app.register(fastifyRateLimit, {
    global: false,
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: () => new ApiError("rate_limited", { temporary: true }),
  });
  await app.register(sessionPlugin, { config, db });

  await app.register(healthRoutes, { db });
  await app.register(sessionRoutes, { config });
  await app.register(countryRoutes, { config });
  await app.register(loginRoutes, { db });
  // Pages and assets get helmet's document headers (CSP and the rest); /api answers carry their own fixed set.
  await app.register(async (pages) => {
    await pages.register(fastifyHelmet, {
      contentSecurityPolicy: {
        directives: {
          "frame-ancestors": ["'none'"],
          "form-action": ["'self'"],
          "upgrade-insecure-requests": config.publicUrl.protocol === "https:" ? [] : null,
        },
      },
      // The sign-in popup (spec §2 CLOSE) must still reach its opener.
      crossOriginOpenerPolicy: { policy: "same-origin-allow-popups" },
      strictTransportSecurity: config.publicUrl.protocol === "https:",
    });
    await registerHostPage(pages, config);
  });

  const sweeper = setInterval(() => {
    Promise.all([sweepSessions(db), sweepThrottle(db)]).catch((err) => app.log.error({ err }, "sweep failed"));
  }, SWEEP_EVERY_MS);
  sweeper.unref();
  app.addHook("onClose", async () => {
    clearInterval(sweeper);
    await db.destroy();
  });
  return app as unknown as App;
}
