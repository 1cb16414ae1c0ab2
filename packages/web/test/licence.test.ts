import { LICENCE_HELPER } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import {
  activate,
  activationUrl,
  blocksLocalHelper,
  classifyAnswer,
  TRIES,
  type TryResult,
} from "../src/screens/studio/licence.ts";

const HELPER = "http://localhost:30304";

describe("the licence helper's address (spec §7)", () => {
  it("asks for an answer, not a redirect, and carries the token", () => {
    const url = new URL(activationUrl(HELPER, "a.b+c"));
    expect(`${url.origin}${url.pathname}`).toBe("http://localhost:30304/activate");
    expect(url.searchParams.get("access_token")).toBe("a.b+c");
    expect(url.searchParams.get("noredirect")).toBe("1");
  });

  it("leaves noredirect out of the manual link", () => {
    const url = new URL(activationUrl(HELPER, "t", true));
    expect(url.searchParams.get("access_token")).toBe("t");
    expect(url.searchParams.has("noredirect")).toBe(false);
  });
});

describe("Safari by its user agent", () => {
  it.each([
    [
      "Safari on a Mac",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
      true,
    ],
    [
      "Safari on an iPhone",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      true,
    ],
    [
      "Chrome",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
      false,
    ],
    [
      "Edge",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
      false,
    ],
    [
      "Chrome on iOS",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0 Mobile/15E148 Safari/604.1",
      false,
    ],
    [
      "Firefox on iOS",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/127.0 Mobile/15E148 Safari/605.1.15",
      false,
    ],
    [
      "Android's browser",
      "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Safari/537.36",
      false,
    ],
    ["Firefox", "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0", false],
    [
      "headless Chromium",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/141.0.0.0 Safari/537.36",
      false,
    ],
    [
      "Chromium",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chromium/126.0 Safari/537.36",
      false,
    ],
  ])("%s", (_name, userAgent, blocked) => {
    expect(blocksLocalHelper(userAgent)).toBe(blocked);
  });
});

describe("one answer of the helper", () => {
  it("is activated on any 2xx", () => {
    expect(classifyAnswer(200, undefined)).toEqual({ kind: "activated" });
    expect(classifyAnswer(204, undefined)).toEqual({ kind: "activated" });
  });

  it("is worth waiting for when the error object says temporary", () => {
    expect(classifyAnswer(503, { HTTPStatus: 503, message: "busy", temporary: true })).toEqual({ kind: "temporary" });
    expect(classifyAnswer(503, { message: "busy", temporary: "yes" }).kind).toBe("failed");
  });

  it("is a failure with the helper's message otherwise, the spec's prefix not said twice", () => {
    expect(
      classifyAnswer(409, { HTTPStatus: 409, message: "License server activation failed: no seat available" }),
    ).toEqual({ kind: "failed", message: "no seat available" });
    expect(classifyAnswer(401, { error_message: "Failed to obtain access token" })).toEqual({
      kind: "failed",
      message: "Failed to obtain access token",
    });
    expect(classifyAnswer(500, "<html>")).toEqual({ kind: "failed", message: "HTTP 500" });
    expect((classifyAnswer(400, { message: "x".repeat(5000) }) as { message: string }).message).toHaveLength(300);
  });
});

describe("the tries (spec §9: timeout 10 s, 4 more tries 2 s apart)", () => {
  function run(results: TryResult[]) {
    const calls: string[] = [];
    const waits: number[] = [];
    const seen: number[] = [];
    const outcome = activate(HELPER, "tok", {
      attempt: async (url) => {
        calls.push(url);
        return results[calls.length - 1] ?? { kind: "unreachable" };
      },
      wait: async (ms) => {
        waits.push(ms);
      },
      onTry: (_result, n) => seen.push(n),
    });
    return { outcome, calls, waits, seen };
  }

  it("stops at the first success", async () => {
    const { outcome, calls, waits } = run([{ kind: "activated" }]);
    expect(await outcome).toEqual({ kind: "activated" });
    expect(calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("waits through temporary failures, 2 s apart, and succeeds", async () => {
    const { outcome, calls, waits } = run([{ kind: "temporary" }, { kind: "temporary" }, { kind: "activated" }]);
    expect(await outcome).toEqual({ kind: "activated" });
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([LICENCE_HELPER.retryDelayMs, LICENCE_HELPER.retryDelayMs]);
  });

  it("makes exactly 5 tries when the helper never answers, then says it could not be reached", async () => {
    const { outcome, calls, waits, seen } = run([]);
    expect(await outcome).toEqual({ kind: "unreachable" });
    expect(TRIES).toBe(5);
    expect(calls).toHaveLength(5);
    expect(waits).toEqual([2000, 2000, 2000, 2000]);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it("says the server is busy when every try was told to wait", async () => {
    const { outcome, calls } = run(Array.from({ length: 5 }, () => ({ kind: "temporary" }) as const));
    expect(await outcome).toEqual({ kind: "busy" });
    expect(calls).toHaveLength(5);
  });

  it("stops at a failure: the helper has decided", async () => {
    const { outcome, calls } = run([{ kind: "temporary" }, { kind: "failed", message: "no seat" }]);
    expect(await outcome).toEqual({ kind: "failed", message: "no seat" });
    expect(calls).toHaveLength(2);
  });
});
