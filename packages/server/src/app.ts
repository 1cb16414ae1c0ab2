import fastifyCookie from "@fastify/cookie";
import fastifyFormbody from "@fastify/formbody";
import fastifyRateLimit from "@fastify/rate-limit";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { dummyHash } from "./accounts/passwords.ts";
import { siteverify } from "./captcha/human.ts";
import { testAnswers } from "./captcha/image.ts";
import { proofOfWork } from "./captcha/proof-of-work.ts";
import { type Config, ConfigError } from "./config.ts";
import { SESSIONS_ENDED_JOB } from "./events/sessions-ended.ts";
import { FORUM_LOG_OUT_JOB, forumLogOut, sendSignOutsToForum } from "./forum/sign-out.ts";
import { registerCompression } from "./http/compression.ts";
import { registerDevMail } from "./http/dev-mail.ts";
import { clientErrorHandler, registerErrorHandling } from "./http/errors.ts";
import { registerHostPage } from "./http/host-page.ts";
import { CompactRequestLog, serializeRequest } from "./http/log.ts";
import { registerPageHeaders } from "./http/page-headers.ts";
import { databaseRateLimitStore, refuseOverLimit } from "./http/rate-limit.ts";
import { refuseUnroutable, sessionPlugin } from "./http/session.ts";
import { queuedSoFar, startQueueWorker } from "./jobs/worker.ts";
import { createTransport } from "./mail/transport.ts";
import { MAIL_JOB, mailJob } from "./mail/worker.ts";
import { ensureSigningKeys, KeyDecryptionError, loadSigningKeys, watchSigningKeys } from "./oidc/keys.ts";
import { mountProvider } from "./oidc/mount.ts";
import { buildProvider } from "./oidc/provider.ts";
import { BACKCHANNEL_LOGOUT_JOB, backchannelLogoutSender, providerSessionEnder } from "./oidc/sessions.ts";
import { activationRoutes } from "./routes/activation.ts";
import { countryRoutes } from "./routes/countries.ts";
import { discourseRoutes } from "./routes/discourse.ts";
import { factorRoutes } from "./routes/factors.ts";
import { federationRoutes } from "./routes/federation.ts";
import { healthRoutes } from "./routes/health.ts";
import { legacyRoutes } from "./routes/legacy.ts";
import { loginRoutes } from "./routes/login.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import { passkeyRoutes } from "./routes/passkeys.ts";
import { passwordRoutes } from "./routes/password.ts";
import { profileRoutes } from "./routes/profile.ts";
import { registerRoutes } from "./routes/register.ts";
import { securityActivityRoutes } from "./routes/security-activity.ts";
import { securityAppRoutes } from "./routes/security-apps.ts";
import { securitySessionRoutes } from "./routes/security-sessions.ts";
import { serviceLoginRoutes } from "./routes/service-login.ts";
import { sessionRoutes } from "./routes/session.ts";
import { sessionLinkRoutes } from "./routes/session-link.ts";
import { studioRoutes } from "./routes/studio.ts";
import { trialRoutes } from "./routes/trial.ts";
import type { Services } from "./services.ts";
import { endSessionsWithAccessLoss } from "./sessions/access-loss.ts";
import { type Db, type DbKind, migrate, openDatabase, ping } from "./store/db.ts";
import { startSweeper } from "./sweeper.ts";

export type App = FastifyInstance & { db: Db; dbKind: DbKind; services: Services };

/** Builds the whole gateway: database (migrated), plugins, routes and the SPA host page. */
export async function buildApp(
  config: Config,
  options: {
    logger?: boolean;
    logStream?: NodeJS.WritableStream;
    /** One line per answered request (method, URL with codes masked, status, time) instead of Fastify's two. */
    compactRequestLog?: boolean;
    mailIntervalMs?: number;
    /** The job worker's look-up interval and first retry delay (tests shorten them). */
    jobIntervalMs?: number;
    jobFirstRetryMs?: number;
  } = {},
): Promise<App> {
  const { db, kind, pool } = openDatabase(config.databaseUrl, config.database.requests);
  const newerMigrations = await migrate(db, config.database.admin);
  await dummyHash();
  // The provider's signing keys: made at first start, read (and decrypted) at every start (oidc/keys.ts).
  await ensureSigningKeys(db, config.sessionSecret);
  const signingKeys = await loadSigningKeys(db, config.sessionSecret).catch((error: unknown) => {
    throw error instanceof KeyDecryptionError
      ? new ConfigError(`Invalid configuration:\n  SESSION_SECRET: ${error.message}`)
      : error;
  });

  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            serializers: { req: serializeRequest },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    trustProxy: config.trustProxy,
    bodyLimit: 64 * 1024,
    ...(options.compactRequestLog ? { logController: new CompactRequestLog() } : {}),
    frameworkErrors: refuseUnroutable(config.publicUrl),
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  // Only JSON and form bodies are accepted; anything else is 415.
  app.removeContentTypeParser("text/plain");
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate("db", db);
  if (newerMigrations.length > 0)
    app.log.warn(
      { migrations: newerMigrations },
      "the database is ahead of this release (a newer one is rolling out): running on it without migrating",
    );
  pool?.on("error", (error) => app.log.warn({ detail: error.message }, "database connection lost; reconnecting"));
  // A connection ended while checked out (a database restart between a transaction's queries): logged for those
  // opened from here on (openDatabase keeps every client's from ending the process). Its query fails (503).
  pool?.on("connect", (client) =>
    client.on("error", (error) => app.log.warn({ detail: error.message }, "database connection lost in use")),
  );
  app.decorate("dbKind", kind);

  registerErrorHandling(app);
  await registerCompression(app);
  // Issue #14: counted from the first route on, served only to METRICS_TOKEN or on METRICS_PORT (docs/deployment.md "Metrics");
  // prom-client is loaded only then, so a gateway without metrics never pays its memory (issue #9).
  if (config.metrics)
    await (await import("./http/metrics.ts")).serveMetrics(app, { settings: config.metrics, db, pool });
  await app.register(fastifyCookie);
  await app.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
  await app.register(fastifyRateLimit, {
    global: false,
    keyGenerator: (request) => request.ip,
    store: databaseRateLimitStore(db),
    errorResponseBuilder: refuseOverLimit(db),
  });
  await app.register(sessionPlugin, { config, db });

  const provider = buildProvider({ config, db, keys: signingKeys, log: app.log });
  const mailTransport = createTransport(config.smtpUrl);
  const queue = startQueueWorker({
    db,
    handlers: {
      [MAIL_JOB]: mailJob({ db, transport: mailTransport, from: config.mailFrom }),
      ...(config.discourse?.api ? { [FORUM_LOG_OUT_JOB]: forumLogOut(config.discourse) } : {}),
      // Issue #27: what follows the end of gateway sessions, written in the transaction that ended them.
      [SESSIONS_ENDED_JOB]: async (payload) => {
        await services.oidc.endProviderSessions((payload as { sessionIds: string[] }).sessionIds);
      },
      [BACKCHANNEL_LOGOUT_JOB]: backchannelLogoutSender(provider),
    },
    log: app.log,
    intervalMs: options.jobIntervalMs ?? options.mailIntervalMs,
    firstDelayMs: options.jobFirstRetryMs,
    onStop: () => mailTransport.close(),
  });
  // Issue #28: a rotation (`keys:rotate`) is picked up within SIGNING_KEYS_REFRESH_S, no restart.
  const keyWatch = watchSigningKeys({
    db,
    sessionSecret: config.sessionSecret,
    provider,
    keys: signingKeys,
    everyMs: config.signingKeysRefreshMs,
    log: app.log,
  });
  const services: Services = {
    config,
    db,
    // Issue #28: one durable queue, one worker; `mail` and `jobs` name the same worker (routes kick it after commits).
    mail: queue,
    jobs: queue,
    proofOfWork: proofOfWork(config.sessionSecret, config.nodeEnv === "test" ? { min: 50, max: 500 } : undefined),
    remoteBotCheck:
      config.botCheck.provider === "altcha" ? undefined : siteverify(config.botCheck.verifyUrl, config.botCheck.secret),
    oidc: { provider, endProviderSessions: providerSessionEnder(provider, db, () => services.jobs.kick()) },
  };
  app.decorate("services", services);
  // Issue #28: a request that queued work (a mail, a back-channel logout) wakes the worker once it has answered, when
  // its transaction is committed, so the work leaves at once rather than at the next pass (up to 5 s later).
  let queuedSeen = queuedSoFar();
  app.addHook("onResponse", async () => {
    if (queuedSoFar() === queuedSeen) return;
    queuedSeen = queuedSoFar();
    queue.kick();
  });

  await app.register(openapiRoutes, { config });
  await app.register(healthRoutes, { ready: () => ping(db) });
  await app.register(sessionRoutes, { config, db });
  await app.register(securitySessionRoutes, { services });
  await app.register(countryRoutes, { config });
  await app.register(loginRoutes, { services });
  await app.register(passkeyRoutes, { services });
  // The gateway session is the one source of truth (issue #10 §1): however gateway sessions end (sign-out, another
  // person's sign-in, a password change or reset, disabling, deletion, expiry), the provider sessions under them
  // end too, with their back-channel logouts. The same person signing in again (prompt=login, max_age) continues:
  // the provider's session is bound to the new gateway session at its next save (oidc/adapter.ts). Issue #27: a job
  // written with the sessions' deletion (events/sessions-ended.ts, sessions/access-loss.ts) does it, so a crash loses
  // none of it; the worker is woken here, so it happens at once when nothing fails.
  endSessionsWithAccessLoss(db, services.jobs.kick);
  app.onSessionsEnded(({ reason }) => {
    if (reason !== "replaced") services.jobs.kick();
  });
  // Issue #13: a sign-out here, or an account change that loses access (disabling, deletion, a password reset or
  // change: accounts/access-lost.ts), signs the person out of the forum too.
  sendSignOutsToForum(db, config.discourse, services.jobs.kick);
  await app.register(registerRoutes, { services });
  await app.register(activationRoutes, { services });
  await app.register(trialRoutes, { services });
  await app.register(passwordRoutes, { services });
  await app.register(profileRoutes, { services });
  await app.register(factorRoutes, { services });
  await app.register(serviceLoginRoutes, { services });
  await app.register(legacyRoutes, { services });
  await app.register(sessionLinkRoutes, { services });
  await app.register(federationRoutes, { services });
  await app.register(discourseRoutes, { services });
  await app.register(studioRoutes, { services });
  await app.register(securityAppRoutes, { services });
  await app.register(securityActivityRoutes, { services });
  await mountProvider(app, { provider, db, config });
  if (config.nodeEnv === "test") {
    // Browser tests solve the CN image captcha through this hook; it exists only under NODE_ENV=test (issue #3).
    app.get<{ Params: { id: string } }>("/api/test/captcha/:id", async (request) => ({
      answer: testAnswers.get(request.params.id) ?? null,
    }));
  }
  // Pages and assets get the document headers (CSP, Permissions-Policy and the rest); /api answers their own set.
  await app.register(async (pages) => {
    await registerPageHeaders(pages, config);
    if (!config.production) await registerDevMail(pages, db, config);
    await registerHostPage(pages, config);
  });

  // Issue #28: expired rows in bounded batches, and audit events past AUDIT_RETENTION_DAYS (sweeper.ts).
  const sweeper = startSweeper(db, app.log, { auditRetentionMs: config.auditRetentionMs });
  app.addHook("onClose", async () => {
    await sweeper.stop();
    keyWatch.stop();
    await queue.stop();
    await db.destroy();
  });
  return app as unknown as App;
}
