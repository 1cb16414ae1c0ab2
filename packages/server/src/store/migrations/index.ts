import type { Migration, MigrationProvider } from "kysely";
import * as foundation from "./001-foundation.ts";
import * as registration from "./002-registration.ts";
import * as passwords from "./003-passwords.ts";
import * as audit from "./004-audit.ts";
import * as rateLimits from "./005-rate-limits.ts";
import * as attemptCounters from "./006-attempt-counters.ts";
import * as supersededCodes from "./007-superseded-codes.ts";
import * as authenticationCore from "./008-authentication-core.ts";
import * as oidc from "./009-oidc.ts";
import * as linkedSessions from "./010-linked-sessions.ts";
import * as federation from "./011-federation.ts";
import * as trials from "./012-trials.ts";
import * as forum from "./013-forum.ts";
import * as signInAttempts from "./014-sign-in-attempts.ts";
import * as secondFactors from "./015-second-factors.ts";
import * as securityPage from "./016-security-page.ts";
import * as activityOrder from "./017-activity-order.ts";
import * as sweeperIndexes from "./020-sweeper-indexes.ts";

/** Migrations in order; names sort, so prefix them with a number. */
const MIGRATIONS: Record<string, Migration> = {
  "001-foundation": foundation,
  "002-registration": registration,
  "003-passwords": passwords,
  "004-audit": audit,
  "005-rate-limits": rateLimits,
  "006-attempt-counters": attemptCounters,
  "007-superseded-codes": supersededCodes,
  "008-authentication-core": authenticationCore,
  "009-oidc": oidc,
  "010-linked-sessions": linkedSessions,
  "011-federation": federation,
  "012-trials": trials,
  "013-forum": forum,
  "014-sign-in-attempts": signInAttempts,
  "015-second-factors": secondFactors,
  "016-security-page": securityPage,
  "017-activity-order": activityOrder,
  "020-sweeper-indexes": sweeperIndexes,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
