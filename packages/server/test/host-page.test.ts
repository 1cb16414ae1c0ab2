import { request } from "node:http";
import { BRANDS, HostSettings, ROUTES, UI_PATHS } from "@gatehouse/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./harness.ts";

let server: TestServer;
beforeAll(async () => {
  // The tests speak for the proxy in front of the service, which sets the country header (COUNTRY_HEADER).
  server = await startServer({ env: { TRUST_PROXY: "loopback" } });
});
afterAll(() => server.close());

/** Over plain HTTP: fetch may not set Host, and the brand is chosen by it. */
function get(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; html: string }> {
  return new Promise((resolve, reject) => {
    request(server.url + path, { headers }, (res) => {
      let html = "";
      res.setEncoding("utf8").on("data", (chunk) => (html += chunk));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: h, html });
      });
    })
      .on("error", reject)
      .end();
  });
}

async function page(path: string, headers: Record<string, string> = {}) {
  const answer = await get(path, headers);
  const response = { status: answer.status, headers: answer.headers };
  const html = answer.html;
  const json = /<script id="gatehouse-settings" type="application\/json">(.*?)<\/script>/su.exec(html)?.[1];
  return { response, html, settings: json ? HostSettings.parse(JSON.parse(json)) : undefined };
}

describe("the SPA's HTML with host-page settings", () => {
  it.each(UI_PATHS)("serves %s with status 200 and settings", async (path) => {
    const { response, settings } = await page(path);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    // Cacheable, revalidated at every use (issue #9): never no-store, which keeps a page out of the bfcache; but the
    // studio's completion page, whose address carries a licence token, is never stored (issue #13).
    expect(response.headers.get("cache-control")).toBe(
      path === ROUTES.SKETCHUP_LOGIN_COMPLETE.path ? "no-store" : "private, no-cache",
    );
    // The app calls the gateway on the origin it was loaded from, whichever brand host that is.
    expect(settings?.gatewayUrl).toBe("/api");
  });

  it("answers unknown paths with the same HTML and status 404, so the SPA shows its 404 page", async () => {
    const { response, settings } = await page("/no/such/page");
    expect(response.status).toBe(404);
    expect(settings).toBeDefined();
  });

  it("picks the brand by host name from the brands file", async () => {
    expect((await page("/", { host: "login.archviz.example" })).settings?.brand).toBe("archviz");
    expect((await page("/", { host: "login.cloud.gatehouse.example" })).settings?.brand).toBe("cloud");
    expect((await page("/", { host: "unknown.example" })).settings?.brand).toBe("default");
  });

  it("honours ?theme= outside production", async () => {
    const { settings, html } = await page("/?theme=engine");
    expect(settings?.brand).toBe("engine");
    expect(html).toContain(`<title>${BRANDS.engine.name}</title>`);
    expect((await page("/?theme=nonsense")).settings?.brand).toBe("default");
  });

  it("ignores ?theme= in production", async () => {
    const production = await startServer({ env: { NODE_ENV: "production", SMTP_URL: "smtp://127.0.0.1:1" } });
    try {
      const response = await fetch(`${production.url}/?theme=engine`);
      expect(await response.text()).toContain('"brand":"default"');
    } finally {
      await production.close();
    }
  });

  it("carries the flags and the return-address allow-list", async () => {
    const { settings } = await page("/");
    expect(Object.keys(settings?.flags ?? {}).sort()).toEqual(
      ["CORPORATE_LOGIN", "CORPORATE_REGISTER", "SOCIAL_REGISTER", "TRIMBLE_LOGIN", "TRIMBLE_REGISTER"].sort(),
    );
    expect(settings?.returnHosts).toContain("www.gatehouse.example");
  });

  it("chooses the language from the cookie, then the return URL, then the country", async () => {
    expect((await page("/", { cookie: "lang=fr", "cf-ipcountry": "ES" })).settings?.language).toBe("fr");
    expect(
      (await page("/?return_to=https%3A%2F%2Fwww.gatehouse.example%2Fde%2Fpricing", { "cf-ipcountry": "ES" })).settings
        ?.language,
    ).toBe("de");
    const spain = await page("/", { "cf-ipcountry": "ES" });
    expect(spain.settings?.language).toBe("es");
    expect(spain.html).toContain('<html lang="es"');
    expect((await page("/", { "cf-ipcountry": "DE" })).settings?.language).toBe("en");
  });

  it("opens a mailed link in the mail's language (?lang=), before the cookie", async () => {
    const linked = await page("/account/activate?code=x&lang=jp", { cookie: "lang=fr", "cf-ipcountry": "ES" });
    expect(linked.settings?.language).toBe("jp");
    expect(linked.html).toContain('<html lang="ja"');
    expect((await page("/?lang=klingon", { cookie: "lang=fr" })).settings?.language).toBe("fr");
  });

  it("serves every brand host the same gateway path, whatever the Host header says", async () => {
    for (const host of ["cloud.localhost:8080", "login.archviz.example", "evil.example"]) {
      const { settings, response } = await page("/", { host });
      expect(settings?.gatewayUrl).toBe("/api");
      expect(response.headers.get("content-security-policy")).toContain("connect-src 'self';");
      expect(response.headers.get("content-security-policy")).not.toContain("evil");
    }
  });

  it("points the app at a gateway on another origin when GATEWAY_URL is set, and lets the CSP reach it", async () => {
    const separate = await startServer({ env: { GATEWAY_URL: "https://gateway.example.com/api/" } });
    try {
      const response = await fetch(`${separate.url}/`);
      expect(response.headers.get("content-security-policy")).toContain(
        "connect-src 'self' https://gateway.example.com;",
      );
      expect(await response.text()).toContain('"gatewayUrl":"https://gateway.example.com/api"');
    } finally {
      await separate.close();
    }
  });

  it("cannot be broken out of by a hostile value", async () => {
    const { html } = await page("/?return_to=%3C%2Fscript%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E", {
      cookie: "lang=</script><script>alert(1)</script>",
    });
    expect(html.match(/<\/script>/gu)?.length).toBe(1);
  });

  it("sends the security headers (CSP, no framing, nosniff)", async () => {
    const { response } = await page("/");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("lets the sign-in popup's pages reach a cross-origin opener, and isolates every other page (spec §2 CLOSE)", async () => {
    const opener = async (path: string, host = "localhost") =>
      (await page(path, { host })).response.headers.get("cross-origin-opener-policy");
    const close = encodeURIComponent("/close?origin=https://www.gatehouse.example");
    for (const path of [
      "/close",
      "/close?origin=https%3A%2F%2Fwww.gatehouse.example",
      "/Close/",
      `/?return_to=${close}`,
      `/register?return_to=${close}`,
      `/?return_to=${encodeURIComponent("http://localhost:8080/close/")}`,
    ])
      expect(await opener(path), path).toBe("unsafe-none");
    expect(
      await opener(`/?return_to=${encodeURIComponent("https://login.archviz.example/close")}`, "login.archviz.example"),
    ).toBe("unsafe-none");
    for (const path of [
      "/",
      "/profile/edit",
      "/account/password-change",
      "/ula-login-success",
      "/?return_to=%2Fclosed",
      "/?return_to=%2Fprofile%2Fedit",
      `/?return_to=${encodeURIComponent("https://evil.example/close")}`,
      `/?return_to=${encodeURIComponent("//evil.example/close")}`,
      "/?return_to=http%3A%2F%2F%5B",
    ])
      expect(await opener(path), path).toBe("same-origin-allow-popups");
  });

  it("does not serve the raw template", async () => {
    expect((await fetch(`${server.url}/index.html`)).status).toBe(404);
  });
});

describe("health", () => {
  it("answers /healthz and /readyz", async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});

describe("GET /api/countries", () => {
  it("lists every ISO 3166-1 country, sorted, in the visitor's language", async () => {
    const english = (await (await fetch(`${server.url}/api/countries`)).json()) as { code: string; name: string }[];
    expect(english.length).toBeGreaterThanOrEqual(249);
    expect(english.find((c) => c.code === "DE")?.name).toBe("Germany");
    const names = english.map((c) => c.name);
    expect(names).toEqual([...names].sort(new Intl.Collator("en").compare));
    const german = (await (
      await fetch(`${server.url}/api/countries`, { headers: { "accept-language": "de-DE,de;q=0.9" } })
    ).json()) as {
      code: string;
      name: string;
    }[];
    expect(german.find((c) => c.code === "DE")?.name).toBe("Deutschland");
    const japanese = (await (
      await fetch(`${server.url}/api/countries`, { headers: { cookie: "lang=jp" } })
    ).json()) as { code: string; name: string }[];
    expect(japanese.find((c) => c.code === "JP")?.name).toBe("日本");
  });
});
