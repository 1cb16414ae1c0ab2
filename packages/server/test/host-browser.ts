import type { App } from "../src/app.ts";

/**
 * Several brand hosts of one app, as a browser sees them (issue #10 §5): `app.inject` with each address's Host
 * header, a cookie jar per host, each host's CSRF token.
 */
export const PASSWORD = "correct horse battery";
/** PUBLIC_URL of the harness: the central host. The brand host is one of the brands file's loopback sites. */
export const CENTRAL = "http://localhost:8080";
export const BRAND = "http://cloud.localhost:8080";
export const OTHER_BRAND = "http://archviz.localhost:8080";

interface Visit {
  status: number;
  location: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them.
  json: any;
  headers: Record<string, unknown>;
}

/**
 * A browser over `app.inject`: a cookie jar per host (cookies are host-only, as the session's is), the Host header
 * of the address it opens, and the CSRF token each host hands out.
 */
export class Browser {
  readonly jars = new Map<string, Map<string, string>>();
  readonly csrf = new Map<string, string>();
  readonly app: App;
  constructor(app: App) {
    this.app = app;
  }

  jar(host: string): Map<string, string> {
    let jar = this.jars.get(host);
    if (!jar) {
      jar = new Map();
      this.jars.set(host, jar);
    }
    return jar;
  }

  async request(method: "GET" | "POST", address: string, payload?: unknown): Promise<Visit> {
    const url = new URL(address);
    const jar = this.jar(url.hostname);
    const answer = await this.app.inject({
      method,
      url: `${url.pathname}${url.search}`,
      headers: {
        host: url.host,
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(method === "POST" ? { "x-csrf-token": this.csrf.get(url.hostname) ?? "" } : {}),
      },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    for (const cookie of answer.cookies) {
      const gone = cookie.maxAge === 0 || (cookie.expires !== undefined && cookie.expires.getTime() < Date.now());
      if (gone) jar.delete(cookie.name);
      else jar.set(cookie.name, cookie.value);
    }
    const csrf = answer.headers["x-csrf-token"];
    if (typeof csrf === "string") this.csrf.set(url.hostname, csrf);
    const location = answer.headers.location;
    return {
      status: answer.statusCode,
      location: typeof location === "string" ? new URL(location, url).href : undefined,
      json: answer.body ? safeJson(answer.body) : undefined,
      headers: answer.headers,
    };
  }

  /** Follows redirects as a browser does, and answers every address it passed through, the last one last. */
  async follow(address: string): Promise<string[]> {
    const trail = [address];
    let next: string | undefined = address;
    for (let hops = 0; next && hops < 6; hops++) {
      const visit = await this.request("GET", next);
      next = visit.status >= 300 && visit.status < 400 ? visit.location : undefined;
      if (next) trail.push(next);
    }
    return trail;
  }

  async session(origin: string) {
    const answer = await this.request("GET", `${origin}/api/session`);
    return answer.status === 204 ? null : answer.json;
  }

  async signIn(origin: string, email: string) {
    await this.session(origin);
    const answer = await this.request("POST", `${origin}/api/account/login`, { email, password: PASSWORD });
    if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.status}`);
  }

  /** What the web app does on a brand host (app/session-link.ts): link, from or to the central host. */
  linkFrom(origin: string, from: string, returnTo: string) {
    return this.follow(`${origin}/api/session/link/start?${new URLSearchParams({ from, return_to: returnTo })}`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
