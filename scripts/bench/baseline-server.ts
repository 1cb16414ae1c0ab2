/**
 * The baseline of the gateway target (issue #9): a Fastify app doing only the single primary-key read that
 * `GET /api/session` signed in does — `sessionsStore.findWithUser` through the same database layer (Kysely on
 * node:sqlite), on the same SQLite file, for the same session id — and answering it as JSON. Run by bench.ts.
 */
import Fastify from "fastify";
import { openDatabase } from "../../packages/server/src/store/db.ts";
import { sessionsStore } from "../../packages/server/src/store/sessions.ts";

const { db } = openDatabase(process.env.DATABASE_URL as string);
const sessionId = process.env.SESSION_ID as string;

const app = Fastify();
app.get("/", async (_request, reply) => {
  const session = await sessionsStore.findWithUser(db, sessionId);
  if (!session) return reply.code(404).send({ found: false });
  return session;
});
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
// A clean exit on the bench's SIGTERM (so `--cpu-prof` can write its profile).
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
