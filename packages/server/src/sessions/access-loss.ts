import { onAccessLost } from "../accounts/access-lost.ts";
import { queueSessionsEnded } from "../events/sessions-ended.ts";
import type { Db } from "../store/db.ts";
import { sessionsStore } from "../store/sessions.ts";

/**
 * Issue #27: an account change that loses access (accounts/access-lost.ts: a password change or reset, disabling,
 * deletion) deletes the person's sessions in its own transaction; this queues, in that same transaction, the end of
 * what was opened under them (provider sessions, back-channel logouts), so a crash loses none of it. It names every
 * session of the person as read before the change: the job leaves alone those still live after it (the session
 * that changed the password stays signed in, with its sites). On every process that changes accounts.
 */
export function endSessionsWithAccessLoss(db: Db, kick?: () => void): () => void {
  return onAccessLost(db, {
    record: async (trx, userId, _loss, now) => {
      await queueSessionsEnded(trx, await sessionsStore.idsOfUser(trx, userId), now);
    },
    committed: () => kick?.(),
  });
}
