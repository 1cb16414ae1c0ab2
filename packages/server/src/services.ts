import type Provider from "oidc-provider";
import type { RemoteBotCheck } from "./captcha/human.ts";
import type { ProofOfWork } from "./captcha/proof-of-work.ts";
import type { Config } from "./config.ts";
import type { JobWorker } from "./jobs/worker.ts";
import type { MailWorker } from "./mail/worker.ts";
import type { EndProviderSessions } from "./oidc/sessions.ts";
import type { Db } from "./store/db.ts";

/** What routes are handed: configuration, the database and the long-lived helpers built once at start. */
export interface Services {
  config: Config;
  db: Db;
  mail: MailWorker;
  /** Durable outbound calls other than mail (issue #13: the forum's sign-out). */
  jobs: JobWorker;
  proofOfWork: ProofOfWork;
  remoteBotCheck: RemoteBotCheck | undefined;
  /** The OpenID Connect provider, and what ends its sessions when gateway sessions end (issue #10 §2). */
  oidc: { provider: Provider; endProviderSessions: EndProviderSessions };
}
