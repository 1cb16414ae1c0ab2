import { describe, expect, it } from "vitest";
import { checkReturnTo, loginHeadingFor, type ReturnPolicy, safeReturnTo } from "../src/index.ts";

const policy: ReturnPolicy = {
  allowedHosts: ["www.brand.example", "forum.brand.example"],
  selfOrigin: "https://login.brand.example",
};

describe("return-address allow-list (spec §4, ASVS 5.1.5)", () => {
  it.each([
    "https://www.brand.example/",
    "https://www.brand.example/de/pricing?x=1#top",
    "https://forum.brand.example/session/sso_login",
    "https://WWW.Brand.Example/path",
    "/profile/edit",
    "https://login.brand.example/account/password-change",
    "http://localhost:30304/activate",
  ])("allows %s", (url) => {
    // Loopback is only allowed when listed: desktop apps name their host explicitly.
    const withLoopback = { ...policy, allowedHosts: [...policy.allowedHosts, "localhost"] };
    expect(checkReturnTo(url, withLoopback)).toBeDefined();
  });

  it.each([
    ["another host", "https://evil.example/"],
    ["a suffix trick", "https://www.brand.example.evil.example/"],
    ["a prefix trick", "https://evilwww.brand.example/"],
    ["a network-path reference", "//evil.example/"],
    ["a backslash path", "/\\evil.example/"],
    ["backslashes", "\\\\evil.example"],
    ["a backslash after the scheme", "https:\\\\evil.example"],
    ["userinfo", "https://www.brand.example@evil.example/"],
    ["userinfo with a password", "https://www.brand.example:pw@evil.example/"],
    ["an encoded slash", "/%2F%2Fevil.example"],
    ["an encoded dot in the host", "https://www%2ebrand%2eexample.evil.example/"],
    ["javascript:", "javascript:alert(1)"],
    ["JavaScript: in mixed case", "JaVaScRiPt:alert(1)"],
    ["data:", "data:text/html,<script>alert(1)</script>"],
    ["a tab inside the scheme", "java\tscript:alert(1)"],
    ["a newline in a path", "/\n/evil.example"],
    ["plain http to a listed host", "http://www.brand.example/"],
    ["ftp", "ftp://www.brand.example/"],
    ["an empty value", ""],
    ["a relative path without slash", "evil.example"],
  ])("refuses %s", (_name, url) => {
    expect(checkReturnTo(url, policy)).toBeUndefined();
  });

  it("falls back to the given page", () => {
    expect(safeReturnTo("https://evil.example/", policy, "https://www.brand.example/")).toBe(
      "https://www.brand.example/",
    );
    expect(safeReturnTo(null, policy, "home")).toBe("home");
  });
});

describe("login heading by return address (spec §2)", () => {
  it.each([
    ["https://www.brand.example/try/corona", "trial"],
    ["https://www.brand.example/trial", "trial"],
    ["https://store.brand.example/cart", "purchase"],
    ["https://www.brand.example/buy?doCheckout=1", "purchase"],
    ["https://www.brand.example/demo", "demo"],
    ["https://www.brand.example/", "default"],
    [null, "default"],
  ] as const)("%s → %s", (returnTo, heading) => {
    expect(loginHeadingFor(returnTo)).toBe(heading);
  });
});
