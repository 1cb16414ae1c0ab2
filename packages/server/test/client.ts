/**
 * The tests' browser, apart from the harness so that scripts outside Vitest can drive one too (the bench's and the
 * soak's desktop sign-ins, desktop-sign-in.ts).
 */

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them.
  json: any;
}

/** A browser-like client: keeps cookies and echoes the CSRF token the gateway hands out. */
export class Client {
  readonly cookies = new Map<string, string>();
  csrf: string | undefined;
  /** The origin the next requests go to: a test of several nodes moves one browser between them. */
  base: string;
  private readonly headers: Record<string, string>;
  constructor(base: string, headers: Record<string, string> = {}) {
    this.base = base;
    this.headers = headers;
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const all: Record<string, string> = { ...this.headers, ...headers };
    if (this.cookies.size) all.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (this.csrf && !("x-csrf-token" in headers)) all["x-csrf-token"] = this.csrf;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === "string" ? body : JSON.stringify(body);
      all["content-type"] ??= "application/json";
    }
    const response = await fetch(this.base + path, { method, headers: all, body: payload, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, value] = (pair ?? "").split("=") as [string, string];
      this.cookies.set(name, value);
    }
    this.csrf = response.headers.get("x-csrf-token") ?? this.csrf;
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request("GET", path, undefined, headers);
  }

  post(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request("POST", path, body ?? {}, headers);
  }

  /** GET /api/session first, as the SPA does, to obtain a session cookie and CSRF token. */
  async start(): Promise<this> {
    await this.get("/api/session");
    return this;
  }

  login(email: string, password: string) {
    return this.post("/api/account/login", { email, password });
  }
}
