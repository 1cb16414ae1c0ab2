import { api } from "@gatehouse/contract";
import { describe, expect, it, vi } from "vitest";
import { createApiClient } from "../src/api/client.ts";
import { ApiError, isScreenFailure, NetworkError, ServerError, UnexpectedAnswerError } from "../src/api/errors.ts";

const errorBody = (status: number, code: string) =>
  JSON.stringify({
    HTTPStatus: status,
    message: code,
    guid: "g-1",
    error_code: code,
    error_message: code,
    error_guid: "g-1",
  });

/** The network is the boundary here: a fetch that answers what each case needs. */
function setup(
  answer: (url: string, init: RequestInit) => Response | Promise<Response>,
  online: boolean | (() => boolean) = true,
) {
  const calls: { url: string; init: RequestInit }[] = [];
  const reload = vi.fn();
  const report = vi.fn();
  const client = createApiClient({
    baseUrl: "https://login.example/api",
    language: () => "de",
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return answer(url, init);
    }) as typeof fetch,
    timeoutMs: 50,
    reload,
    report,
    online: typeof online === "function" ? online : () => online,
  });
  return { client, calls, reload, report };
}

const headersOf = (call: { init: RequestInit } | undefined) => (call?.init.headers ?? {}) as Record<string, string>;

const json = (body: string, status: number, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { "content-type": "application/json", ...headers } });

const SIGNED_IN = {
  RequiredPasswordUpdate: false,
  RequiredProfileUpdate: true,
  next: { kind: "step", url: "/profile/edit?required_profile_update=true" },
};

describe("the gateway client (spec §7, §8)", () => {
  it("fetches a CSRF token before its first state-changing call, then sends it with credentials and the language", async () => {
    const { client, calls } = setup((url) =>
      url.endsWith("/session")
        ? new Response(null, { status: 204, headers: { "x-csrf-token": "tok-1" } })
        : json(JSON.stringify(SIGNED_IN), 200, { "x-csrf-token": "tok-2" }),
    );
    const answer = await client.call(api.login, { body: { email: "a@b.co", password: "secret1" } });
    expect(answer).toEqual(SIGNED_IN);
    expect(calls.map((c) => c.url)).toEqual([
      "https://login.example/api/session",
      "https://login.example/api/account/login",
    ]);
    expect(calls[1]?.init).toMatchObject({ method: "POST", credentials: "include" });
    expect(headersOf(calls[1])["accept-language"]).toBe("de");
    expect(headersOf(calls[1])["x-csrf-token"]).toBe("tok-1");
    // A rotated session hands out a new token, used from then on.
    await client.call(api.logout, { body: {} });
    expect(headersOf(calls[2])["x-csrf-token"]).toBe("tok-2");
    expect(client.csrfToken()).toBe("tok-2");
  });

  it("fills path parameters, encoded", async () => {
    const { client, calls } = setup(() => json(JSON.stringify({ status: "valid" }), 200));
    await client.call(api.recoverStatus, { params: { code: "a/b c" } });
    expect(calls[0]?.url).toBe("https://login.example/api/account/recover/a%2Fb%20c");
  });

  it("throws other 4xx to the caller with the error object, and does not report 401/404/405", async () => {
    for (const [status, code] of [
      [401, "invalid_authentication"],
      [404, "not_found"],
      [405, "method_not_allowed"],
    ] as const) {
      const { client, report, reload } = setup(() => json(errorBody(status, code), status));
      const error = await client.call(api.session).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe(code);
      expect(report).not.toHaveBeenCalled();
      expect(reload).not.toHaveBeenCalled();
    }
  });

  it("reports the 4xx that spec §8 does not exempt", async () => {
    const { client, report } = setup(() => json(errorBody(429, "rate_limited"), 429));
    await expect(client.call(api.session)).rejects.toBeInstanceOf(ApiError);
    expect(report).toHaveBeenCalledOnce();
  });

  it("reloads the page on a 403 that is not a screen's business, without reporting it", async () => {
    const { client, reload, report } = setup(() => json(errorBody(403, "csrf_invalid"), 403));
    await expect(client.call(api.logout, { body: {} })).rejects.toBeInstanceOf(ApiError);
    expect(reload).toHaveBeenCalledOnce();
    expect(report).not.toHaveBeenCalled();
  });

  it("hands a not-active or disabled 403 to the login screen instead of reloading", async () => {
    for (const code of ["user_not_active", "user_disabled"]) {
      const { client, reload } = setup(() => json(errorBody(403, code), 403));
      const error = await client
        .call(api.login, { body: { email: "a@b.co", password: "secret1" } })
        .catch((e: unknown) => e);
      expect((error as ApiError).code).toBe(code);
      expect(reload).not.toHaveBeenCalled();
    }
  });

  it("turns 5xx into a screen failure that carries the reference, and reports it", async () => {
    const { client, report } = setup(() => json(errorBody(500, "internal_server_error"), 500));
    const error = await client.call(api.session).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).guid).toBe("g-1");
    expect(isScreenFailure(error)).toBe(true);
    expect(report).toHaveBeenCalledOnce();
  });

  it("shows a non-JSON error with its status and body", async () => {
    const { client } = setup(
      () => new Response("<h1>502 Bad Gateway</h1>", { status: 502, headers: { "content-type": "text/html" } }),
    );
    const error = (await client.call(api.session).catch((e: unknown) => e)) as UnexpectedAnswerError;
    expect(error).toBeInstanceOf(UnexpectedAnswerError);
    expect(error.status).toBe(502);
    expect(error.body).toContain("Bad Gateway");
  });

  it("refuses a success whose body does not match the contract", async () => {
    const { client } = setup(() => json(JSON.stringify({ nope: true }), 200));
    await expect(client.call(api.session)).rejects.toBeInstanceOf(UnexpectedAnswerError);
  });

  it("says offline when the browser is offline", async () => {
    const { client } = setup(() => Promise.reject(new TypeError("Failed to fetch")), false);
    const error = (await client.call(api.session).catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.kind).toBe("offline");
  });

  it("says offline when the browser learns it only a moment after the request failed", async () => {
    let online = true;
    const { client, report } = setup(
      () => {
        setTimeout(() => {
          online = false;
        }, 20);
        return Promise.reject(new TypeError("Failed to fetch"));
      },
      () => online,
    );
    const error = (await client.call(api.session).catch((e: unknown) => e)) as NetworkError;
    expect(error.kind).toBe("offline");
    expect(report).not.toHaveBeenCalled();
  });

  it("times out after the configured time (30 s by default)", async () => {
    const { client, report } = setup(
      (_url, init) =>
        new Promise((_resolve, reject) => {
          init.signal?.addEventListener("abort", () => reject(new DOMException("timed out", "TimeoutError")));
        }),
    );
    const error = (await client.call(api.session).catch((e: unknown) => e)) as NetworkError;
    expect(error.kind).toBe("timeout");
    expect(report).not.toHaveBeenCalled();
  });
});
