import { BRANDS } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./harness.ts";

/**
 * The host page is cacheable by the browser and revalidated at every use (issue #9, docs/decisions.md "The host
 * page is cacheable"): never no-store, which keeps pages out of the back/forward cache.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { TRUST_PROXY: "loopback" } });
});
afterAll(() => server.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  server.app.inject({ method: "GET", url, headers: { host: "localhost:8080", ...headers } });

describe("the host page's caching", () => {
  it("is private, no-cache with a strong ETag, never no-store", async () => {
    for (const url of ["/", "/register", "/account/recover", "/no/such/page"]) {
      const answer = await get(url);
      expect(answer.headers["cache-control"]).toBe("private, no-cache");
      expect(answer.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/u);
      expect(answer.headers["set-cookie"]).toBeUndefined();
    }
  });

  it("answers a revalidation of the same page 304 without a body", async () => {
    const first = await get("/register?return_to=%2Fprofile%2Fedit");
    const etag = String(first.headers.etag);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await get("/register?return_to=%2Fprofile%2Fedit", { "if-none-match": ifNoneMatch });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe("");
      expect(again.headers.etag).toBe(etag);
      expect(again.headers["cache-control"]).toBe("private, no-cache");
    }
  });

  it("answers the full page when anything it is chosen by differs", async () => {
    const base = await get("/");
    const etag = String(base.headers.etag);
    const variants: [string, Record<string, string>][] = [
      ["/", { cookie: "lang=de" }],
      ["/", { "cf-ipcountry": "FR" }],
      ["/", { "cf-ipcountry": "CN" }],
      ["/", { host: "login.archviz.example" }],
      ["/?theme=engine", {}],
      ["/?lang=jp", {}],
    ];
    for (const [url, headers] of variants) {
      const answer = await get(url, { ...headers, "if-none-match": etag });
      expect(answer.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(200);
      expect(answer.headers.etag).not.toBe(etag);
    }
    expect((await get("/", { "if-none-match": '"stale"' })).statusCode).toBe(200);
  });

  it("keeps a 404 page a 404 even when its validator matches", async () => {
    const first = await get("/no/such/page");
    const again = await get("/no/such/page", { "if-none-match": String(first.headers.etag) });
    expect(again.statusCode).toBe(404);
  });

  it("leaves /api answers no-store", async () => {
    expect((await get("/api/session")).headers["cache-control"]).toBe("no-store");
  });
});

describe("the host page's head", () => {
  it("describes the page in its language and brand, gives the brand's theme colour and preloads its logo", async () => {
    const german = (await get("/", { cookie: "lang=de", host: "login.archviz.example" })).body;
    expect(german).toContain(`<title>${BRANDS.archviz.name}</title>`);
    expect(german).toContain(
      `<meta name="description" content="Melden Sie sich bei Ihrem Konto für ${BRANDS.archviz.name} an oder erstellen Sie ein neues.">`,
    );
    expect(german).toContain(`<meta name="theme-color" content="${BRANDS.archviz.colors.background}">`);
    expect(german).toContain(`<link rel="preload" as="image" href="${BRANDS.archviz.logo}" fetchpriority="high">`);
    const english = (await get("/")).body;
    expect(english).toContain(`content="Sign in to your ${BRANDS.default.name} account or create one."`);
  });
});
