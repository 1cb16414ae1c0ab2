import { type Adapter, type AdapterPayload, errors } from "oidc-provider";
import type { Db } from "../store/db.ts";
import { oidcStore } from "../store/oidc.ts";

const SECOND_MS = 1000;

/** The gateway session the current request carries, for the provider session being saved (oidc/gateway-session.ts). */
export type GatewaySessionOfRequest = () => string | null;

/**
 * The provider's storage in our database (one row per model instance, store/oidc.ts), so every node shares it
 * and a restart loses nothing. The provider checks expiry itself; rows past it are also hidden here and swept
 * with the other expired rows (app.ts).
 */
export function oidcAdapter(db: Db, gatewaySessionOfRequest: GatewaySessionOfRequest) {
  return class KyselyAdapter implements Adapter {
    readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const now = Date.now();
      await oidcStore.upsert(db, {
        model: this.model,
        id,
        payload: JSON.stringify(payload),
        // Only sessions are found by uid, and only device codes by user code (indexes exist for those alone).
        uid: this.model === "Session" && typeof payload.uid === "string" ? payload.uid : null,
        grantId: typeof payload.grantId === "string" ? payload.grantId : null,
        userCode: this.model === "DeviceCode" && typeof payload.userCode === "string" ? payload.userCode : null,
        // Which gateway session a provider session was saved under: signing out there ends it (oidc/sessions.ts).
        gatewaySessionId: this.model === "Session" ? gatewaySessionOfRequest() : null,
        // Issue #27: a person's grants are listed and revoked by account (security/apps.ts, accounts/access-lost.ts).
        accountId: this.model === "Grant" && typeof payload.accountId === "string" ? payload.accountId : null,
        expiresAt: expiresIn ? now + expiresIn * SECOND_MS : null,
        issuedAt: now,
      });
    }

    find(id: string) {
      return this.findBy("id", id);
    }

    findByUid(uid: string) {
      return this.findBy("uid", uid);
    }

    findByUserCode(userCode: string) {
      return this.findBy("user_code", userCode);
    }

    /**
     * The provider reads `consumed`, then calls this: two redemptions of one code (or refresh token) arriving together,
     * on one node or two, both read it unconsumed. The database lets one of them consume it; the other is refused
     * here, before any token is issued, and ends the grant, as the provider does with a code used again later
     * (RFC 6749 §4.1.2, RFC 9700 §4.14.2; ASVS v5 10.4.2: an authorization code is used once).
     */
    async consume(id: string): Promise<void> {
      const outcome = await oidcStore.consume(db, this.model, id, Date.now());
      if (!outcome.lost) return;
      if (this.model === "PushedAuthorizationRequest") {
        throw new errors.InvalidRequestUri("request_uri is invalid, expired, or was already used");
      }
      if (outcome.grantId) await oidcStore.revokeGrant(db, outcome.grantId);
      throw new errors.InvalidGrant(`${this.model} already consumed`);
    }

    async destroy(id: string): Promise<void> {
      await oidcStore.destroy(db, this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await oidcStore.revokeByGrantId(db, this.model, grantId);
    }

    private async findBy(by: "id" | "uid" | "user_code", value: string): Promise<AdapterPayload | undefined> {
      const row = await oidcStore.find(db, this.model, by, value, Date.now());
      if (!row) return undefined;
      const payload = JSON.parse(row.payload) as AdapterPayload;
      // The provider reads `consumed` to refuse a second use of a code (and revoke what the first one issued).
      return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(row.consumed_at / SECOND_MS) };
    }
  };
}
