import { api, type Endpoint, statusesOf } from "@gatehouse/contract";
import { type ApiName, endpoints } from "@gatehouse/contract/endpoints";
import { compileErrors, validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VIEWER_CSP } from "../src/routes/openapi.ts";
import { startServer, type TestServer } from "./harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document is read loosely and asserted on.
type Json = any;

let server: TestServer;
let document: Json;

beforeAll(async () => {
  server = await startServer();
  document = await (await fetch(`${server.url}/api/openapi.json`)).json();
});
afterAll(() => server.close());

/** The schema a `$ref` names in the document's components, or the schema itself. */
function resolved(schema: Json): Json {
  const ref: string | undefined = schema?.$ref;
  return ref ? document.components.schemas[ref.replace("#/components/schemas/", "")] : schema;
}

const operation = (endpoint: Endpoint) => document.paths[`/api${endpoint.path}`]?.[endpoint.method.toLowerCase()];

describe("GET /api/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(document));
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
  });

  // Walks the contract, so a new endpoint that the document misses fails here.
  it.each(Object.entries(endpoints) as [ApiName, Endpoint][])(
    "describes %s with its method, path and statuses",
    (name, endpoint) => {
      const op = operation(endpoint);
      expect(op, `${endpoint.method} /api${endpoint.path}`).toBeDefined();
      expect(op.operationId).toBe(name);
      for (const status of statusesOf(endpoint)) {
        const answer = op.responses[String(status)];
        expect(answer, `${name} ${status}`).toBeDefined();
        const schema = answer.content?.["application/json"]?.schema;
        if (status >= 400) expect(schema).toEqual({ $ref: "#/components/schemas/ErrorAnswer" });
        else if (status === 204 || status >= 300) expect(schema).toBeUndefined();
        else expect(schema, `${name} ${status}`).toBeDefined();
      }
      expect(op.responses.default.content["application/json"].schema.$ref).toBe("#/components/schemas/ErrorAnswer");
      // Path parameters as OpenAPI names them, each listed and required.
      for (const [, param] of endpoint.path.matchAll(/\{(\w+)\}/gu)) {
        expect(op.parameters).toContainEqual(expect.objectContaining({ in: "path", name: param, required: true }));
      }
      expect(Boolean(op.requestBody), name).toBe(Boolean(endpoint.body));
    },
  );

  it("gives the login body its fields, the required ones required", () => {
    const body = resolved(operation(api.login).requestBody.content["application/json"].schema);
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(["email", "password", "isTrial", "productCode"]),
    );
    expect(body.required).toEqual(["email", "password"]);
    expect(resolved(operation(api.login).responses["200"].content["application/json"].schema).required).toEqual([
      "RequiredPasswordUpdate",
      "RequiredProfileUpdate",
      "next",
    ]);
  });

  it("names the spec's error object and lists its fields", () => {
    expect(document.components.schemas.ErrorAnswer.required).toEqual([
      "HTTPStatus",
      "message",
      "guid",
      "error_code",
      "error_message",
      "error_guid",
    ]);
  });

  it("lists query parameters from the declaration", () => {
    const names = operation(api.sessionLinkStart).parameters.map((p: Json) => [p.in, p.name, p.required]);
    expect(names).toEqual([
      ["query", "from", true],
      ["query", "return_to", true],
    ]);
  });

  it("asks the session cookie and the CSRF header where the gateway does", () => {
    const { session, csrf } = document.components.securitySchemes;
    expect(session).toEqual(expect.objectContaining({ type: "apiKey", in: "cookie", name: "gh_session" }));
    expect(csrf).toEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "X-CSRF-Token" }));
    expect(operation(api.login).security).toEqual([{ session: [], csrf: [] }]);
    expect(operation(api.profile).security).toEqual([{ session: [] }]);
    expect(operation(api.countries).security).toBeUndefined();
    expect(operation(api.login).description).toContain("Rate limit `login`");
  });

  it("describes the probes and points at the OpenID Connect discovery, and nothing outside the contract", () => {
    expect(document.paths["/healthz"].get.operationId).toBe("healthz");
    expect(Object.keys(document.paths["/readyz"].get.responses)).toEqual(["200", "503"]);
    expect(document.externalDocs.url).toBe("http://localhost:8080/oidc/.well-known/openid-configuration");
    const contractPaths = new Set(Object.values(endpoints).map((e) => `/api${e.path}`));
    const others = Object.keys(document.paths).filter((path) => !contractPaths.has(path));
    expect(others).toEqual(["/healthz", "/readyz"]);
    expect(document.info.version).toMatch(/^\d+\.\d+\.\d+/u);
  });

  it("is cacheable and carries no session for a new visitor", async () => {
    const answer = await fetch(`${server.url}/api/openapi.json`);
    expect(answer.headers.get("cache-control")).toBe("public, max-age=300");
    expect(answer.headers.getSetCookie()).toEqual([]);
    expect(answer.headers.get("x-csrf-token")).toBeNull();
    // The same visitor calling the gateway still gets both.
    const session = await fetch(`${server.url}/api/session`);
    expect(session.headers.getSetCookie()).toHaveLength(1);
  });

  it("names the origin it was asked on as its server when that origin is ours, PUBLIC_URL's otherwise", async () => {
    const on = async (host: string) =>
      (await server.app.inject({ method: "GET", url: "/api/openapi.json", headers: { host } })).json().servers;
    expect(await on("login.gatehouse.example:8080")).toEqual([{ url: "http://login.gatehouse.example:8080" }]);
    expect(await on("localhost:8080")).toEqual([{ url: "http://localhost:8080" }]);
    expect(await on("attacker.example")).toEqual([{ url: "http://localhost:8080" }]);
  });
});

describe("GET /api/docs", () => {
  it("serves the viewer page under its own narrow CSP, loading only files of our origin", async () => {
    const answer = await fetch(`${server.url}/api/docs`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain("text/html");
    expect(answer.headers.get("content-security-policy")).toBe(VIEWER_CSP);
    expect(VIEWER_CSP).toContain("script-src 'self';");
    expect(VIEWER_CSP).not.toMatch(/unsafe-|https?:|\*/u);
    const html = await answer.text();
    expect(html).not.toMatch(/<script>|<script(?![^>]*\ssrc=)/u);
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/gu)].map(([, url]) => url as string);
    for (const url of sources.filter((u) => u.startsWith("/"))) {
      const file = await fetch(`${server.url}${url}`, { headers: { "accept-encoding": "br" } });
      expect(file.status, url).toBe(200);
      expect(file.headers.getSetCookie(), url).toEqual([]);
    }
    expect(sources.every((url) => url.startsWith("/api/docs/") || url === "data:,")).toBe(true);
  });

  it("sends Swagger UI's bundle compressed once, revalidated by its ETag", async () => {
    const url = `${server.url}/api/docs/swagger-ui-bundle.js`;
    const br = await fetch(url, { headers: { "accept-encoding": "br" } });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("content-type")).toContain("javascript");
    expect((await br.text()).length).toBeGreaterThan(1_000_000);
    const plain = await fetch(url, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    const etag = plain.headers.get("etag") ?? "";
    expect((await fetch(url, { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  it("does not serve the rest of the package (its demo page loads a third-party document)", async () => {
    for (const path of [
      "/api/docs/index.html",
      "/api/docs/swagger-initializer.js",
      "/api/docs/swagger-ui-bundle.js.map",
    ]) {
      const answer = await fetch(`${server.url}${path}`);
      expect(answer.status, path).toBe(404);
      expect(((await answer.json()) as Json).error_code).toBe("not_found");
    }
  });
});
