import type Provider from "oidc-provider";
import type { RemoteBotCheck } from "./captcha/human.ts";
import type { ProofOfWork } from "./captcha/proof-of-work.ts";
import type { Config } from "./config.ts";
import type { JobWorker } from "./jobs/worker.ts";
import type { EndProviderSessions } from "./oidc/sessions.ts";
import type { Db } from "./store/db.ts";

/** What routes are handed: configuration, the database and the long-lived helpers built once at start. */
export interface Services {
  config: Config;
  db: Db;
  /** Issue #28: the one durable queue's worker, by the name the mail routes kick it with (the same as `jobs`). */
  mail: JobWorker;
  /** The one durable queue's worker: mail and every outbound call (the forum's sign-out, back-channel logouts). */
  jobs: JobWorker;
  proofOfWork: ProofOfWork;
  remoteBotCheck: RemoteBotCheck | undefined;
  /** The OpenID Connect provider, and what ends its sessions when gateway sessions end (issue #10 §2). */
  oidc: { provider: Provider; endProviderSessions: EndProviderSessions };
}
