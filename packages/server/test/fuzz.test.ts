import { endpoints } from "@gatehouse/contract/endpoints";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../src/accounts/users.ts";
import { Client, startServer, type TestServer } from "./harness.ts";

/** "No input may produce a 5xx or a stack trace", for every call of the contract, signed in or not. */
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { TRUST_PROXY: "true" } });
  await createUser(server.app.db, {
    email: "fuzz@example.com",
    password: "Granite-Kettle-58",
    firstName: "F",
    lastName: "Z",
    countryCode: "DE",
  });
});
afterAll(() => server.close());

const writes = Object.entries(endpoints).filter(([, e]) => e.method !== "GET");
const reads = Object.entries(endpoints).filter(([, e]) => e.method === "GET");
const anyValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string()),
  fc.dictionary(fc.string(), fc.string()),
);

describe.each([
  ["a visitor", false],
  ["a signed-in user", true],
])("as %s", (_who, signedIn) => {
  let n = 0;
  const client = async () => {
    const c = await new Client(server.url, {
      "x-forwarded-for": `10.9.${signedIn ? 1 : 0}.${(++n % 250) + 1}`,
    }).start();
    if (signedIn) await c.login("fuzz@example.com", "Granite-Kettle-58");
    return c;
  };

  it.each(writes)("%s answers any JSON body without a 5xx", async (_name, endpoint) => {
    const c = await client();
    const keys = Object.keys((endpoint as { body?: { shape?: Record<string, unknown> } }).body?.shape ?? {});
    const body = fc.oneof(
      fc.jsonValue(),
      keys.length
        ? fc.record(Object.fromEntries(keys.map((k) => [k, anyValue])), { requiredKeys: [] })
        : fc.constant({}),
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const path = endpoint.path.replace("{code}", "x");
        const answer = await c.request(endpoint.method, `/api${path}`, JSON.stringify(payload));
        expect(answer.status, `${endpoint.method} ${path} ${JSON.stringify(payload)}`).toBeLessThan(500);
        expect(answer.text).not.toMatch(/\bat .+\.(ts|js):\d+/u);
      }),
      { numRuns: 12 },
    );
  });

  it.each(reads)("%s answers odd path parameters without a 5xx", async (_name, endpoint) => {
    const c = await client();
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (value) => {
        const path = endpoint.path.replace("{code}", encodeURIComponent(value) || "x");
        const answer = await c.get(`/api${path}?continue=${encodeURIComponent(value)}`);
        expect(answer.status).toBeLessThan(500);
      }),
      { numRuns: 8 },
    );
  });
});
