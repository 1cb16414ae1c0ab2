import http from "node:http";
import net from "node:net";
import { endpoints } from "@gatehouse/contract/endpoints";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { canonicalPath } from "../src/http/api-paths.ts";
import { type Answer, Client, expectErrorObject, startServer, type TestServer } from "./harness.ts";

/**
 * The session and CSRF guard holds for every request that reaches an /api route, however its target is spelled
 * (ASVS 3.5.1 and V4; issue #8): percent-escapes, absolute-form targets, dot segments, repeated slashes, case.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await createUser(server.app.db, {
    email: "victim@example.com",
    password: "correct horse",
    firstName: "Vic",
    lastName: "Tim",
    countryCode: "DE",
  });
});
afterAll(() => server.close());

/** Sends the request target exactly as given (fetch would resolve dot segments and reject absolute forms). */
function raw(method: string, target: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(server.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: hostname,
        port,
        method,
        path: target,
        // Content-Length always: Node sends a DELETE's body unframed otherwise, and the server then reads the body
        // as a second, unparsable request.
        headers: payload
          ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)), ...headers }
          : headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const answerHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers))
            if (typeof value === "string") answerHeaders.set(name, value);
          resolve({ status: response.statusCode ?? 0, headers: answerHeaders, text, json });
        });
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

const hex = (c: string, upper: boolean) => {
  const code = c.charCodeAt(0).toString(16).padStart(2, "0");
  return `%${upper ? code.toUpperCase() : code}`;
};

/** Other spellings of an /api path that a router or a proxy in front of it might take for the same path. */
function spellings(path: string): string[] {
  const rest = path.slice("/api".length);
  const [first = "", ...others] = rest.slice(1);
  return [
    `/%61pi${rest}`,
    `/a%70i${rest}`,
    `/ap%69${rest}`,
    `/%61%70%69${rest}`,
    `/%2561pi${rest}`,
    `/api/${hex(first, true)}${others.join("")}`,
    `http://localhost${path}`,
    `HTTP://127.0.0.1:1${path}`,
    `http://attacker.example${path}`,
    `http://localhost/%61pi${rest}`,
    `//api${rest}`,
    `/api/${rest}`,
    `/./api${rest}`,
    `/x/../api${rest}`,
    `/api/.${rest}`,
    `/api/x/..${rest}`,
    `/%2e/api${rest}`,
    `/x/%2e%2e/api${rest}`,
    `${path}/`,
    `${path};x=1`,
    `/api${rest.replaceAll("/", "%2F")}`,
    `/api${rest.replaceAll("/", "\\")}`,
    `/API${rest}`,
    `/%41PI${rest}`,
  ];
}

const fastifyPath = (path: string) => `/api${path.replace(/\{\w+\}/gu, "x")}`;
const writes = Object.values(endpoints).filter((endpoint) => endpoint.method !== "GET");
const reads = Object.values(endpoints).filter((endpoint) => endpoint.method === "GET");

/** A refusal of the guard, or the API's 404: never the handler's work, never a 5xx, always the API's headers. */
function expectRefusedByTheApi(answer: Answer, target: string) {
  const code = answer.json?.error_code;
  expect([403, 404, 400], `${target}: ${answer.status} ${answer.text.slice(0, 200)}`).toContain(answer.status);
  expectErrorObject(answer, answer.status, code);
  if (answer.status !== 400) expect(code, target).toBe(answer.status === 403 ? "csrf_invalid" : "not_found");
  expect(answer.headers.get("cache-control"), target).toBe("no-store");
  expect(answer.headers.get("content-security-policy"), target).toBe("default-src 'none'; frame-ancestors 'none'");
}

async function outboxSize(): Promise<number> {
  const rows = await server.app.db.selectFrom("outbox").select("id").execute();
  return rows.length;
}

describe("the CSRF and session guard, whatever the spelling of the path", () => {
  it("refuses every state-changing call without a session and token, under every spelling", async () => {
    const before = await outboxSize();
    for (const endpoint of writes) {
      for (const target of spellings(fastifyPath(endpoint.path))) {
        const answer = await raw(endpoint.method, target, { email: "victim@example.com" });
        expectRefusedByTheApi(answer, `${endpoint.method} ${target}`);
      }
    }
    expect(await outboxSize()).toBe(before);
  });

  it("queues no recovery mail for any spelling of POST /api/account/recover (property test)", async () => {
    const before = await outboxSize();
    const segment = (text: string) =>
      fc
        .array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: text.length, maxLength: text.length })
        .map((flags) => [...text].map((c, i) => (flags[i]?.[0] ? hex(c, flags[i]?.[1] ?? false) : c)).join(""));
    const noise = fc.constantFrom("", "./", "x/../", "/", "%2e/", "x/%2e%2e/");
    const target = fc
      .tuple(
        fc.constantFrom("", "http://localhost", "https://attacker.example:8443"),
        noise,
        segment("api"),
        noise,
        segment("account"),
        noise,
        segment("recover"),
      )
      .map(([origin, n1, a, n2, b, n3, c]) => `${origin}/${n1}${a}/${n2}${b}/${n3}${c}`);
    await fc.assert(
      fc.asyncProperty(target, async (path) => {
        expectRefusedByTheApi(await raw("POST", path, { email: "victim@example.com" }), path);
      }),
      { numRuns: 150 },
    );
    expect(await outboxSize()).toBe(before);
  });

  it("answers a visitor on routes that read the session as a visitor (204, 401), under every spelling, never 500", async () => {
    // The session check answers a visitor 204 No Content; a route that needs a session answers 401.
    for (const [path, visitor] of [
      ["/api/session", 204],
      ["/api/account/profile", 401],
    ] as const) {
      for (const target of spellings(path)) {
        for (const method of ["GET", "HEAD"]) {
          const answer = await raw(method, target);
          expect([visitor, 404], `${method} ${target}: ${answer.status} ${answer.text}`).toContain(answer.status);
          expect(answer.headers.get("cache-control"), target).toBe("no-store");
          if (method === "GET" && answer.status !== 204)
            expectErrorObject(answer, answer.status, answer.status === 401 ? "not_authenticated" : "not_found");
        }
      }
    }
  });

  it("never answers 5xx to a visitor on any read, under any spelling", async () => {
    for (const endpoint of reads) {
      for (const target of spellings(fastifyPath(endpoint.path))) {
        const answer = await raw("GET", target);
        expect(answer.status, `${target}: ${answer.text.slice(0, 200)}`).toBeLessThan(500);
        expect(answer.headers.get("cache-control"), target).toBe("no-store");
      }
    }
  });

  it("answers an unknown /api path with the API's error object and headers, however it is spelled", async () => {
    for (const target of spellings("/api/no/such/thing")) {
      for (const method of ["GET", "POST", "DELETE"]) {
        const answer = await raw(method, target, method === "POST" ? {} : undefined);
        expectRefusedByTheApi(answer, `${method} ${target}`);
        expect(answer.text).not.toContain("<!doctype html>");
      }
    }
  });

  it("answers a target the router cannot read (malformed escapes) with the error object, never Fastify's", async () => {
    for (const target of ["/api/account/recover%zz", "/%61pi/%", "/api/account/recover/%c0%af", "/%E0%A4%A"]) {
      const answer = await raw("POST", target, {});
      expectErrorObject(answer, 400, "invalid_request");
      if (target !== "/%E0%A4%A") expect(answer.headers.get("cache-control"), target).toBe("no-store");
    }
  });

  it("answers a request the HTTP parser refuses (before any routing) with the error object, never Fastify's", async () => {
    const { hostname, port } = new URL(server.url);
    /** Sends bytes as they are (no client library would send these) and reads the answer until the server closes. */
    const sendRaw = (bytes: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), hostname, () => socket.end(bytes));
        const chunks: Buffer[] = [];
        socket.on("data", (chunk: Buffer) => chunks.push(chunk));
        socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
        socket.on("error", reject);
      });
    const requests = [
      "POST \\api\\account\\recover HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
      "post /api/account/recover HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
      "POST /api/account/\trecover HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
      "POST /api/account/recover HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      "GARBAGE\r\n\r\n",
    ];
    for (const request of requests) {
      const answer = await sendRaw(request);
      const [head = "", body = ""] = answer.split("\r\n\r\n");
      expect(head, request).toMatch(/^HTTP\/1\.1 400 /u);
      expect(head.toLowerCase(), request).toContain("cache-control: no-store");
      const json = JSON.parse(body) as Record<string, unknown>;
      expect(json, request).toMatchObject({ HTTPStatus: 400, error_code: "invalid_request" });
      expect(json.guid, request).toMatch(/^[0-9a-f-]{36}$/u);
    }
  });

  it("still serves the web app's 404 page for paths outside /api", async () => {
    for (const target of ["/no/such/page", "/apiary", "/x/../apix/y"]) {
      const answer = await raw("GET", target);
      expect(answer.status, target).toBe(404);
      expect(answer.text, target).toContain("<!doctype html>");
    }
  });

  it("lets a signed-in browser with its token through, however the path is spelled", async () => {
    const client = await new Client(server.url).start();
    expect((await client.login("victim@example.com", "correct horse")).status).toBe(200);
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const answer = await raw("GET", "/%61pi/account/profile", undefined, { cookie });
    expect(answer.status).toBe(200);
    expect(answer.json.email).toBe("victim@example.com");
  });
});

describe("canonicalPath", () => {
  it("reads every spelling of an /api path as that path", () => {
    for (const target of spellings("/api/account/recover").filter((t) => !t.endsWith(";x=1")))
      expect(canonicalPath(target), target).toBe("/api/account/recover");
    expect(canonicalPath("/api/x?y=/../z#w")).toBe("/api/x");
    expect(canonicalPath("/%zz/api")).toBe("/%zz/api");
    expect(canonicalPath("/../../api/../../")).toBe("/");
  });
});
