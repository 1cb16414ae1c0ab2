import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from "node:zlib";
import Fastify from "fastify";
import type { Response as InjectAnswer } from "light-my-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { COMPRESS_THRESHOLD_BYTES, registerCompression } from "../src/http/compression.ts";
import { startServer, TEST_TEMPLATE, type TestServer } from "./harness.ts";

/** The body as the client reads it once it undoes the Content-Encoding. */
function decoded(answer: InjectAnswer): string {
  const raw = answer.rawPayload;
  const encoding = answer.headers["content-encoding"];
  if (encoding === "br") return brotliDecompressSync(raw).toString("utf8");
  if (encoding === "gzip") return gunzipSync(raw).toString("utf8");
  expect(encoding ?? "identity").toBe("identity");
  return raw.toString("utf8");
}

function varies(answer: InjectAnswer): string[] {
  return String(answer.headers.vary ?? "")
    .toLowerCase()
    .split(/\s*,\s*/u);
}

/** A host page as large as the built one: the template of the tests is far below the threshold. */
function largeWebDist(): string {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-compress-"));
  const filler = `<meta name="x" content="${"word ".repeat(600)}">`;
  writeFileSync(join(dir, "index.html"), TEST_TEMPLATE.replace("<title>", `${filler}<title>`));
  return dir;
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { WEB_DIST: largeWebDist() } });
  await createUser(server.app.db, {
    email: "zip@example.com",
    password: "correct horse battery",
    firstName: "Zip",
    lastName: "Per",
    countryCode: "DE",
  });
});
afterAll(() => server.close());

const countries = (acceptEncoding?: string) =>
  server.app.inject({
    url: "/api/countries",
    headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding },
  });

describe("compressed answers (issue #9)", () => {
  it("answers a large API answer in brotli, gzip or as it is, as asked, the same JSON each time", async () => {
    const plain = await countries();
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESS_THRESHOLD_BYTES);
    const json = JSON.parse(decoded(plain));
    expect(json.length).toBeGreaterThan(100);

    const br = await countries("gzip, deflate, br, zstd");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(JSON.parse(decoded(br))).toEqual(json);

    const gzip = await countries("gzip");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(decoded(gzip))).toEqual(json);

    const identity = await countries("identity");
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(decoded(identity))).toEqual(json);
  });

  it("sends the country list compressed at start at brotli's best quality, and honours a refused encoding", async () => {
    const plain = await countries();
    const br = await countries("br");
    const best = brotliCompressSync(plain.rawPayload, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    expect(br.rawPayload.length).toBe(best.length);
    expect((await countries("br;q=0, gzip")).headers["content-encoding"]).toBe("gzip");
    expect((await countries("br;q=0, gzip;q=0")).headers["content-encoding"]).toBeUndefined();
  });

  it("says that the answer depends on Accept-Encoding, whichever encoding this client got", async () => {
    for (const asked of [undefined, "br", "gzip", "identity"]) {
      const answer = await countries(asked);
      expect(varies(answer), String(asked)).toContain("accept-encoding");
      // The route's own Vary stays.
      expect(varies(answer)).toContain("accept-language");
    }
  });

  it("keeps the API's security headers on a compressed answer", async () => {
    const br = await countries("br");
    expect(br.headers["cache-control"]).toBe("no-store");
    expect(br.headers["x-content-type-options"]).toBe("nosniff");
    expect(br.headers["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it("compresses the host page", async () => {
    const plain = await server.app.inject({ url: "/" });
    const br = await server.app.inject({ url: "/", headers: { "accept-encoding": "br" } });
    const gzip = await server.app.inject({ url: "/", headers: { "accept-encoding": "gzip" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(br.headers["content-encoding"]).toBe("br");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(decoded(br)).toBe(decoded(plain));
    expect(decoded(gzip)).toBe(decoded(plain));
    for (const answer of [plain, br, gzip]) expect(varies(answer)).toContain("accept-encoding");
    expect(br.headers["content-security-policy"]).toBe(plain.headers["content-security-policy"]);
  });

  it("leaves small answers as they are: the session answer, with its CSRF token", async () => {
    const visitor = await server.app.inject({ url: "/api/session", headers: { "accept-encoding": "br" } });
    const cookie = String([visitor.headers["set-cookie"]].flat()[0]).split(";")[0] as string;
    const csrf = String(visitor.headers["x-csrf-token"]);
    const login = await server.app.inject({
      method: "POST",
      url: "/api/account/login",
      headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json", "accept-encoding": "br" },
      payload: JSON.stringify({ email: "zip@example.com", password: "correct horse battery" }),
    });
    expect(login.statusCode).toBe(200);
    const signedIn = String([login.headers["set-cookie"]].flat()[0]).split(";")[0] as string;
    const session = await server.app.inject({
      url: "/api/session",
      headers: { cookie: signedIn, "accept-encoding": "gzip, deflate, br, zstd" },
    });
    expect(session.statusCode).toBe(200);
    expect(session.headers["x-csrf-token"]).toMatch(/^[\w-]{43}$/u);
    expect(session.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(decoded(session)).Email).toBe("zip@example.com");
  });

  it("keeps the guid in error objects, however they are encoded", async () => {
    for (const asked of ["br", "gzip", undefined]) {
      const answer = await server.app.inject({
        url: "/api/no-such-call",
        headers: asked ? { "accept-encoding": asked } : {},
      });
      expect(answer.statusCode).toBe(404);
      const body = JSON.parse(decoded(answer));
      expect(body.guid).toMatch(/^[0-9a-f-]{36}$/u);
      expect(body.error_guid).toBe(body.guid);
    }
  });

  it("never inflates a compressed request body: refused with the error object, not a 5xx", async () => {
    const visitor = await server.app.inject({ url: "/api/session" });
    const cookie = String([visitor.headers["set-cookie"]].flat()[0]).split(";")[0] as string;
    const answer = await server.app.inject({
      method: "POST",
      url: "/api/account/login",
      headers: {
        cookie,
        "x-csrf-token": String(visitor.headers["x-csrf-token"]),
        "content-type": "application/json",
        "content-encoding": "gzip",
      },
      payload: gzipSync(JSON.stringify({ email: "zip@example.com", password: "correct horse battery" })),
    });
    expect(answer.statusCode).toBeGreaterThanOrEqual(400);
    expect(answer.statusCode).toBeLessThan(500);
    expect(JSON.parse(answer.body).guid).toBeDefined();
  });
});

describe("the compression layer on its own", () => {
  const big = JSON.stringify({ text: "lorem ipsum ".repeat(500) });
  const app = Fastify();
  beforeAll(async () => {
    await registerCompression(app);
    // What @fastify/static does with a file precompressed at build time.
    app.get("/encoded", async (_request, reply) =>
      reply.header("content-encoding", "br").type("application/json").send(brotliCompressSync(big)),
    );
    app.get("/tagged", async (_request, reply) => reply.header("etag", '"v1"').type("text/html").send(big));
    await app.ready();
  });
  afterAll(() => app.close());

  it("leaves an answer that is already encoded as it is", async () => {
    const answer = await app.inject({ url: "/encoded", headers: { "accept-encoding": "gzip, br" } });
    expect(answer.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(answer.rawPayload).toString()).toBe(big);
  });

  it("weakens a strong ETag on a compressed answer, and keeps it on the answer sent as it is", async () => {
    const br = await app.inject({ url: "/tagged", headers: { "accept-encoding": "br" } });
    const plain = await app.inject({ url: "/tagged" });
    expect(br.headers.etag).toBe('W/"v1"');
    expect(plain.headers.etag).toBe('"v1"');
  });
});
