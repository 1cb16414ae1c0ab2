/**
 * The soak's mixed load: what a day of traffic is made of, as the browser and the desktop apps make it.
 *  - session: `GET /api/session` with a signed-in cookie (every page of every brand site asks it);
 *  - sign-in: a new visitor's `GET /api/session` (cookie and CSRF token), then `POST /api/account/login`;
 *  - registration: a new visitor, the bot check's challenge (`GET /api/captcha/challenge`), its proof of work
 *    solved as the widget solves it, then `POST /api/account/register`, which owes one activation mail;
 *  - refresh: a desktop app's refresh-token grant at `/oidc/token` (the token rotates at every use).
 * Each sign-in and registration comes from a client address of its own (X-Forwarded-For through the trusted
 * proxy), as real traffic does; per-address limits then see what they see in service.
 */
import { type RefreshAnswer, refreshGrant } from "../bench/oidc.ts";
import type { Solver } from "./solver.ts";
import type { Sent, Stats } from "./stats.ts";

export type Kind = "session" | "sign-in" | "registration" | "refresh";

/** A cookie jar of name=value pairs, as a browser keeps them for one host. */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = (pair ?? "").indexOf("=");
      this.cookies.set((pair ?? "").slice(0, at), (pair ?? "").slice(at + 1));
    }
  }
  get header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/**
 * Shares of the mix, by operation. Session checks dominate as page views do; sign-ins and registrations are few
 * but cost an argon2id hash each (and a registration its mail). A registration also costs the soak a proof of
 * work (about 50 ms of a core here), so its share stays small on a machine that runs both sides.
 */
export const MIX: Readonly<Record<Kind, number>> = { session: 0.7, refresh: 0.15, "sign-in": 0.1, registration: 0.05 };

/** A request without an answer after this long counts as a failure, as a browser's API client gives up (30 s). */
const REQUEST_TIMEOUT_MS = 30_000;
/** Signed-in sessions the session checks use; each sign-in of the load replaces one, so the set keeps changing. */
const SESSION_POOL = 64;
/** What a browser sends: the session answer is asked for as browsers ask for it (the bench does the same). */
const BROWSER_ENCODINGS = "gzip, deflate, br, zstd";

export interface Target {
  /** The gateway nodes, as a load balancer has them: each operation goes to the next one in turn. */
  bases: string[];
  /** Tells this run's addresses apart from any earlier run's on the same database. */
  runId: string;
  /** The password of every account the soak signs in to or registers. */
  password: string;
  /** Accounts made before the load, to sign in to. */
  accounts: string[];
  solver: Solver;
}

/** Registrations by address: tried, and acknowledged by the gateway (200), which then owes one mail. */
export interface Registrations {
  attempted: Set<string>;
  acknowledged: Set<string>;
}

interface Visitor {
  jar: Jar;
  csrf: string;
  address: string;
  node: number;
}

/** The node refused the connection: it is not listening (killed), so it never saw the request. */
function refused(error: unknown): boolean {
  return (error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED";
}

/** A refresh-token chain: the token its last answer gave it, and whether it asks for an ID token too. */
interface Chain {
  token: string;
  scope?: string;
}

export class Load {
  readonly registrations: Registrations = { attempted: new Set(), acknowledged: new Set() };
  stats: Stats;
  private readonly target: Target;
  private readonly sessions: string[] = [];
  private readonly idleChains: Chain[] = [];
  private readonly chainWaiters: ((chain: Chain | undefined) => void)[] = [];
  private liveChains = 0;
  private clients = 0;
  private registered = 0;
  private signIns = 0;
  private turn = 0;
  /**
   * Requests refused by a node that was down (connection refused: it never saw them) and sent to the next node, as
   * a load balancer does; a request already sent when its node died is not repeated (it may have taken effect).
   */
  retried = 0;

  constructor(target: Target, stats: Stats, refreshTokens: string[]) {
    this.target = target;
    this.stats = stats;
    // Half the chains refresh as desktop apps are told to (`scope=api`: the API's JWT alone), half ask for an
    // ID token as well, so both signing paths run (docs/performance.md "Benchmark").
    for (const [i, token] of refreshTokens.entries()) this.idleChains.push(i % 2 ? { token, scope: "api" } : { token });
    this.liveChains = refreshTokens.length;
  }

  /** Signs in until the session pool is full, before any load. */
  async fillSessions(): Promise<void> {
    while (this.sessions.length < SESSION_POOL) {
      if (!(await this.signIn())) throw new Error("a sign-in to fill the session pool failed (see the report)");
    }
  }

  run(kind: Kind): Promise<unknown> {
    switch (kind) {
      case "session":
        return this.sessionCheck();
      case "sign-in":
        return this.signIn();
      case "registration":
        return this.register();
      case "refresh":
        return this.refresh();
    }
  }

  private async sessionCheck(): Promise<void> {
    const cookie = this.sessions[Math.floor(Math.random() * this.sessions.length)] as string;
    await this.request("GET /api/session (signed in)", "/api/session", 200, {
      headers: { cookie, "accept-encoding": BROWSER_ENCODINGS },
    });
  }

  /**
   * After the load: every session of the pool (each an acknowledged sign-in) still signed in, and every refresh
   * chain's last acknowledged token still granted. Returns what the service no longer knew.
   */
  async checkAcknowledged(): Promise<{ sessions: number; sessionsLost: number; chains: number; chainsLost: number }> {
    let sessionsLost = 0;
    for (const cookie of this.sessions) {
      const answer = await this.request("GET /api/session (after the load)", "/api/session", 200, {
        headers: { cookie },
      });
      if (!answer?.ok) sessionsLost += 1;
    }
    const chains = this.idleChains.splice(0);
    let chainsLost = 0;
    for (const chain of chains) {
      const node = this.nextNode();
      const answer = await refreshGrant(this.base(node), chain.token, chain.scope).catch(() => undefined);
      if (!answer?.ok) {
        chainsLost += 1;
        this.stats.problem(`refresh (after the load): the chain's last acknowledged token was refused`);
      }
    }
    return { sessions: this.sessions.length, sessionsLost, chains: chains.length, chainsLost };
  }

  /** Refresh chains given up because their grant was in flight to a node that died (its answer is unknown). */
  chainsInFlightAtKill = 0;

  /** A visitor from an address of its own: the first call of every page, which hands out cookie and CSRF token. */
  private async visitor(): Promise<Visitor | undefined> {
    const jar = new Jar();
    const address = this.nextAddress();
    const answer = await this.request("GET /api/session (visitor)", "/api/session", 204, {
      headers: { "x-forwarded-for": address },
    });
    if (!answer?.ok) return undefined;
    jar.take(answer.response);
    // The visitor's next requests go to the node that answered (sticky, as most balancers keep a browser).
    return { jar, csrf: answer.response.headers.get("x-csrf-token") ?? "", address, node: answer.node };
  }

  private async signIn(): Promise<boolean> {
    const visitor = await this.visitor();
    if (!visitor) return false;
    const { accounts, password } = this.target;
    const email = accounts[this.signIns++ % accounts.length] as string;
    const answer = await this.request(
      "POST /api/account/login",
      "/api/account/login",
      200,
      { method: "POST", headers: this.headers(visitor), body: JSON.stringify({ email, password }) },
      visitor.node,
    );
    if (!answer?.ok) return false;
    visitor.jar.take(answer.response);
    if (this.sessions.length < SESSION_POOL) this.sessions.push(visitor.jar.header);
    else this.sessions[Math.floor(Math.random() * SESSION_POOL)] = visitor.jar.header;
    return true;
  }

  private async register(): Promise<void> {
    const visitor = await this.visitor();
    if (!visitor) return;
    const challenge = await this.request(
      "GET /api/captcha/challenge",
      "/api/captcha/challenge",
      200,
      { headers: this.headers(visitor) },
      visitor.node,
    );
    if (!challenge?.ok) return;
    let botCheck: string;
    try {
      botCheck = await this.target.solver.solve(JSON.parse(challenge.body));
    } catch (error) {
      this.stats.problem(`registration: the proof of work failed: ${(error as Error).message}`);
      return;
    }
    const email = `soak-${this.target.runId}-r${this.registered++}@example.com`;
    this.registrations.attempted.add(email);
    const answer = await this.request(
      "POST /api/account/register",
      "/api/account/register",
      200,
      {
        method: "POST",
        headers: this.headers(visitor),
        body: JSON.stringify({
          email,
          password: this.target.password,
          firstName: "Soak",
          lastName: "Test",
          countryCode: "de",
          newsletterSubscription: false,
          botCheck,
        }),
      },
      visitor.node,
    );
    if (answer?.ok) this.registrations.acknowledged.add(email);
  }

  /** One grant on a chain nobody else is using (a rotated token presented twice would, rightly, end the grant). */
  private async refresh(): Promise<void> {
    const chain = await this.takeChain();
    if (!chain) {
      this.stats.problem("refresh: every refresh-token chain has been refused; no grant left to make");
      return;
    }
    const name = `POST /oidc/token (refresh${chain.scope ? `, scope=${chain.scope}` : ", with ID token"})`;
    let node = this.nextNode();
    let started = performance.now();
    let answer: RefreshAnswer;
    for (let tries = 1; ; tries++) {
      try {
        answer = await refreshGrant(this.base(node), chain.token, chain.scope, {
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        break;
      } catch (error) {
        if (refused(error) && tries < this.target.bases.length) {
          this.retried += 1;
          node = this.nextNode(node);
          started = performance.now();
          continue;
        }
        this.stats.error(name, performance.now() - started, error, { node, startedAt: started });
        // The grant may have rotated the token before the node died: the chain's next token is unknown.
        if (!refused(error)) this.chainsInFlightAtKill += 1;
        this.dropChain();
        return;
      }
    }
    const ms = performance.now() - started;
    if (!answer.ok) {
      this.stats.answer(name, ms, answer.status, 200, answer.body, { node, startedAt: started });
      // 503 is "try again" (the database was away and the grant did not happen): the app keeps its token and does.
      if (answer.status === 503) this.giveChain(chain);
      else this.dropChain();
      return;
    }
    this.stats.answer(name, ms, 200, 200, "");
    chain.token = answer.token;
    this.giveChain(chain);
  }

  private takeChain(): Promise<Chain | undefined> {
    // The longest idle first, so every chain (both kinds of grant) takes its turn.
    const chain = this.idleChains.shift();
    if (chain) return Promise.resolve(chain);
    if (this.liveChains === 0) return Promise.resolve(undefined);
    return new Promise((resolve) => this.chainWaiters.push(resolve));
  }

  private giveChain(chain: Chain): void {
    const waiter = this.chainWaiters.shift();
    if (waiter) waiter(chain);
    else this.idleChains.push(chain);
  }

  /** A refused chain is spent; when none is left, the refreshes waiting for one give up. */
  private dropChain(): void {
    this.liveChains -= 1;
    if (this.liveChains > 0) return;
    for (const waiter of this.chainWaiters.splice(0)) waiter(undefined);
  }

  private headers(visitor: Visitor): Record<string, string> {
    return {
      "content-type": "application/json",
      cookie: visitor.jar.header,
      "x-csrf-token": visitor.csrf,
      "x-forwarded-for": visitor.address,
    };
  }

  /** A client address of its own for each visitor: 10.0.0.1, 10.0.0.2, … (16 million before one repeats). */
  private nextAddress(): string {
    const n = ++this.clients;
    return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  }

  /** The next node in turn, or the one after `after` (where a refused request goes next). */
  private nextNode(after?: number): number {
    const count = this.target.bases.length;
    if (after !== undefined) return (after + 1) % count;
    this.turn = (this.turn + 1) % count;
    return this.turn;
  }

  private base(node: number): string {
    return this.target.bases[node] as string;
  }

  /**
   * A timed request whose whole body is read; the answer is recorded against the status it must have. A refused
   * connection (the node is down and never saw the request) goes to the next node.
   */
  private async request(
    name: string,
    path: string,
    expected: number,
    init: RequestInit,
    node = this.nextNode(),
  ): Promise<{ ok: boolean; response: Response; body: string; node: number } | undefined> {
    for (let tries = 1; ; tries++) {
      const started = performance.now();
      const sent: Sent = { node, startedAt: started };
      try {
        const response = await fetch(this.base(node) + path, {
          ...init,
          redirect: "manual",
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const body = await response.text();
        this.stats.answer(name, performance.now() - started, response.status, expected, body, sent);
        return { ok: response.status === expected, response, body, node };
      } catch (error) {
        if (refused(error) && tries < this.target.bases.length) {
          this.retried += 1;
          node = this.nextNode(node);
          continue;
        }
        this.stats.error(name, performance.now() - started, error, sent);
        return undefined;
      }
    }
  }
}
