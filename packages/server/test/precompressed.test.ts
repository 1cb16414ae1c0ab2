import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, TEST_TEMPLATE, type TestServer, tempDir } from "./harness.ts";

/**
 * Static files with precompressed siblings (issue #9): a small dist like the web build's, with `.br` and `.gz`
 * beside the files worth compressing and none beside the rest.
 */
let server: TestServer;
let dist: string;
const SCRIPT = "/assets/app-Ab12Cd34.js";
const STYLE = "/assets/app-Ef56Gh78.css";
const SMALL = "/assets/tiny-Ij90Kl12.js";
const LOGO = "/brands/logo.svg";

/** Text that compresses, with some randomness so each encoding gives different bytes. */
function text(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `export const v${i} = "${randomBytes(4).toString("hex")}";`).join(
    "\n",
  );
}

function writeWithSiblings(path: string, content: string) {
  const file = join(dist, path);
  writeFileSync(file, content);
  writeFileSync(`${file}.br`, brotliCompressSync(content));
  writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
}

beforeAll(async () => {
  dist = join(tempDir(), "dist");
  mkdirSync(join(dist, "assets"), { recursive: true });
  mkdirSync(join(dist, "brands"));
  writeFileSync(join(dist, "index.html"), TEST_TEMPLATE);
  writeWithSiblings(SCRIPT, text(200));
  writeWithSiblings(STYLE, `.a{color:red}\n`.repeat(200));
  writeWithSiblings(LOGO, `<svg xmlns="http://www.w3.org/2000/svg">${"<g/>".repeat(400)}</svg>`);
  writeFileSync(join(dist, SMALL), "export const tiny = 1;\n");
  server = await startServer({ env: { WEB_DIST: dist } });
});
afterAll(() => server.close());

const original = (path: string) => readFileSync(join(dist, path));
const get = (url: string, encoding?: string) =>
  server.app.inject({ method: "GET", url, headers: encoding === undefined ? {} : { "accept-encoding": encoding } });

describe("precompressed static files", () => {
  it("sends the .br file to a browser that takes brotli, and it decodes to the original", async () => {
    const answer = await get(SCRIPT, "gzip, deflate, br, zstd");
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["content-encoding"]).toBe("br");
    expect(answer.headers["content-type"]).toMatch(/^(text|application)\/javascript/u);
    expect(answer.headers.vary).toMatch(/accept-encoding/iu);
    expect(answer.rawPayload.equals(original(`${SCRIPT}.br`))).toBe(true);
    expect(brotliDecompressSync(answer.rawPayload).equals(original(SCRIPT))).toBe(true);
  });

  it("sends the .gz file to a browser that takes only gzip", async () => {
    const answer = await get(STYLE, "gzip");
    expect(answer.headers["content-encoding"]).toBe("gzip");
    expect(answer.headers["content-type"]).toMatch(/^text\/css/u);
    expect(answer.rawPayload.equals(original(`${STYLE}.gz`))).toBe(true);
    expect(gunzipSync(answer.rawPayload).equals(original(STYLE))).toBe(true);
  });

  it("sends the original to a browser that takes no encoding, and says the answer depends on it", async () => {
    for (const encoding of [undefined, "identity"]) {
      const answer = await get(SCRIPT, encoding);
      expect(answer.headers["content-encoding"]).toBeUndefined();
      expect(answer.headers.vary).toMatch(/accept-encoding/iu);
      expect(answer.rawPayload.equals(original(SCRIPT))).toBe(true);
    }
  });

  it("keeps the immutable cache headers of /assets/ for every encoding, and gives other files none", async () => {
    for (const encoding of ["br", "gzip", "identity"]) {
      expect((await get(SCRIPT, encoding)).headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    }
    const logo = await get(LOGO, "br");
    expect(logo.headers["content-encoding"]).toBe("br");
    expect(logo.headers["content-type"]).toMatch(/^image\/svg\+xml/u);
    expect(logo.headers["cache-control"]).not.toContain("immutable");
  });

  it("still serves a file that has no precompressed sibling (compressed on the fly, as any answer)", async () => {
    const answer = await get(SMALL, "br, gzip");
    expect(answer.statusCode).toBe(200);
    const encoding = answer.headers["content-encoding"];
    // @fastify/compress encodes a streamed file whatever its size (its threshold applies to known lengths only).
    const body = encoding === "br" ? brotliDecompressSync(answer.rawPayload) : answer.rawPayload;
    expect(encoding === undefined || encoding === "br").toBe(true);
    expect(body.equals(original(SMALL))).toBe(true);
  });

  it("does not serve the compressed files under their own names, nor the raw template", async () => {
    expect((await get(`${SCRIPT}.br`)).statusCode).toBe(404);
    expect((await get(`${SCRIPT}.gz`)).statusCode).toBe(404);
    expect((await get("/index.html", "br")).statusCode).toBe(404);
  });
});
