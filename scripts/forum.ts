/**
 * `npm run forum`: the stand-in Discourse forum for trying the forum bridge on one machine (docs/protocols.md "Community forum
 * (DiscourseConnect)"), at http://127.0.0.1:8091 (FORUM_PORT). It sends DiscourseConnect sign-ins to Gatehouse at
 * PUBLIC_URL (default http://localhost:8080) and shares the secret and API key printed below with it.
 */
import { startStandInForum } from "./forum/stand-in.ts";

const secret = process.env.DISCOURSE_SECRET ?? "dev-discourse-secret";
const apiKey = process.env.DISCOURSE_API_KEY ?? "dev-discourse-api-key";
const forum = await startStandInForum({
  port: Number(process.env.FORUM_PORT ?? 8091),
  gatewayUrl: process.env.PUBLIC_URL ?? "http://localhost:8080",
  secret,
  apiKey,
  apiUsername: process.env.DISCOURSE_API_USERNAME ?? "system",
});
console.log(`Stand-in forum at ${forum.url} (Log in: ${forum.loginUrl})`);
console.log(
  `Start Gatehouse with DISCOURSE_URL=${forum.url} DISCOURSE_SECRET=${secret} DISCOURSE_API_KEY=${apiKey} npm start`,
);
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void forum.close().then(() => process.exit(0)));
