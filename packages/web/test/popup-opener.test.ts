import type { ReturnPolicy } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { type Opener, openerTarget, POPUP_CLOSE_MESSAGE, tellOpener } from "../src/screens/popup/opener.ts";

const policy: ReturnPolicy = { allowedHosts: ["www.brand.example"], selfOrigin: "https://login.brand.example" };

/** A window that records what is posted to it (the browser's own postMessage is exercised in e2e/desktop-pages). */
function recordingOpener() {
  const posted: { message: unknown; targetOrigin: unknown }[] = [];
  const opener: Opener = {
    postMessage: ((message: unknown, targetOrigin: unknown) =>
      posted.push({ message, targetOrigin })) as Opener["postMessage"],
  };
  return { opener, posted };
}

describe("/close and its opener (spec §2 CLOSE)", () => {
  it("has nobody to tell without an opener, whatever origin is claimed", () => {
    expect(openerTarget(null, "https://www.brand.example", policy)).toBeUndefined();
    expect(openerTarget(undefined, null, policy)).toBeUndefined();
  });

  it("tells an opener at its allowed origin, or at our own when none is claimed", () => {
    const { opener } = recordingOpener();
    expect(openerTarget(opener, "https://www.brand.example", policy)).toBe("https://www.brand.example");
    expect(openerTarget(opener, null, policy)).toBe("https://login.brand.example");
  });

  it("refuses an opener origin off the list", () => {
    const { opener } = recordingOpener();
    expect(openerTarget(opener, "https://evil.example", policy)).toBeUndefined();
    expect(openerTarget(opener, "*", policy)).toBeUndefined();
  });

  it("posts the close message to exactly the target origin, never to '*'", () => {
    const { opener, posted } = recordingOpener();
    tellOpener(opener, "https://www.brand.example");
    expect(posted).toEqual([{ message: POPUP_CLOSE_MESSAGE, targetOrigin: "https://www.brand.example" }]);
  });
});
