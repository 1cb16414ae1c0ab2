import { api } from "@gatehouse/contract";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApiClient } from "../src/api/client.ts";
import { ApiError } from "../src/api/errors.ts";
import { setStepUpAsker, stepUp } from "../src/api/step-up.ts";

const stale = () =>
  new Response(
    JSON.stringify({
      HTTPStatus: 403,
      message: "reauthentication_required",
      guid: "g-1",
      error_code: "reauthentication_required",
      error_message: "reauthentication_required",
      error_guid: "g-1",
    }),
    { status: 403, headers: { "content-type": "application/json", "x-csrf-token": "tok" } },
  );
const ok = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

/** The network is the boundary: each call answers the next of `answers`. */
function clientWith(answers: (() => Response)[], stepUpAnswer: boolean | undefined) {
  const urls: string[] = [];
  const reload = vi.fn();
  const asked = vi.fn(async () => stepUpAnswer ?? false);
  const client = createApiClient({
    baseUrl: "https://login.example/api",
    fetch: (async (url: string) => {
      urls.push(url);
      if (url.endsWith("/session")) return new Response(null, { status: 204, headers: { "x-csrf-token": "t" } });
      const next = answers.shift();
      if (!next) throw new Error("no more answers");
      return next();
    }) as typeof fetch,
    reload,
    stepUp: stepUpAnswer === undefined ? undefined : asked,
  });
  return { client, urls, reload, asked };
}

describe("the step-up of the gateway client (issue #26)", () => {
  afterEach(() => setStepUpAsker(undefined));

  it("asks for a fresh proof on 403 reauthentication_required, then makes the call once more", async () => {
    const { client, urls, reload, asked } = clientWith([stale, () => ok({})], true);
    await expect(client.call(api.totpRemove)).resolves.toEqual({});
    expect(asked).toHaveBeenCalledOnce();
    expect(urls.filter((url) => url.endsWith("/account/totp"))).toHaveLength(2);
    expect(reload).not.toHaveBeenCalled();
  });

  it("hands the 403 to the screen when the person cancels, without reloading the page", async () => {
    const { client, reload, asked } = clientWith([stale], false);
    const error = await client.call(api.totpRemove).catch((e: unknown) => e);
    expect((error as ApiError).code).toBe("reauthentication_required");
    expect(asked).toHaveBeenCalledOnce();
    expect(reload).not.toHaveBeenCalled();
  });

  it("retries only once: a proof the server still finds stale is the screen's to show", async () => {
    const { client, asked } = clientWith([stale, stale], true);
    const error = await client.call(api.totpRemove).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(asked).toHaveBeenCalledOnce();
  });

  it("opens one question for calls that hit the step-up together", async () => {
    let answer: (confirmed: boolean) => void = () => undefined;
    const asker = vi.fn(() => new Promise<boolean>((resolve) => (answer = resolve)));
    setStepUpAsker(asker);
    const both = Promise.all([stepUp(), stepUp()]);
    answer(true);
    await expect(both).resolves.toEqual([true, true]);
    expect(asker).toHaveBeenCalledOnce();
  });

  it("answers false when nothing can ask", async () => {
    await expect(stepUp()).resolves.toBe(false);
  });
});
