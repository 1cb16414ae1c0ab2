import type { ReturnPolicy } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { POPUP_CLOSE_MESSAGE, popupOpenerOrigin } from "../src/screens/popup/opener.ts";

const policy: ReturnPolicy = {
  allowedHosts: ["www.brand.example", "site.localhost"],
  selfOrigin: "https://login.brand.example",
};

describe("the origin /close may post to (spec §2 CLOSE)", () => {
  it.each([
    ["an allow-listed host's origin", "https://www.brand.example", "https://www.brand.example"],
    ["an allow-listed host with a port", "https://www.brand.example:8443", "https://www.brand.example:8443"],
    ["our own origin", "https://login.brand.example", "https://login.brand.example"],
    ["a loopback name over http", "http://site.localhost:5173", "http://site.localhost:5173"],
  ])("allows %s", (_why, claimed, origin) => {
    expect(popupOpenerOrigin(claimed, policy)).toBe(origin);
  });

  it("is our own origin when the opener names none", () => {
    for (const none of [null, undefined, ""])
      expect(popupOpenerOrigin(none, policy)).toBe("https://login.brand.example");
  });

  it.each([
    ["a host not on the list", "https://evil.example"],
    ["a suffix trick", "https://www.brand.example.evil.example"],
    ["plain http to a public host", "http://www.brand.example"],
    ["a loopback name not on the list", "http://evil.localhost:5173"],
    ["the wildcard", "*"],
    ["an opaque origin", "null"],
    ["a path (not an origin)", "https://www.brand.example/page"],
    ["a trailing slash (not as location.origin writes it)", "https://www.brand.example/"],
    ["a relative path", "/"],
    ["upper case (not as location.origin writes it)", "https://WWW.brand.example"],
    ["userinfo", "https://www.brand.example@evil.example"],
    ["javascript:", "javascript:alert(1)"],
    ["an explicit default port", "https://www.brand.example:443"],
  ])("refuses %s", (_why, claimed) => {
    expect(popupOpenerOrigin(claimed, policy)).toBeUndefined();
  });

  it("posts a message with a fixed, documented shape", () => {
    expect(POPUP_CLOSE_MESSAGE).toEqual({ type: "gatehouse:popup-close" });
  });
});
