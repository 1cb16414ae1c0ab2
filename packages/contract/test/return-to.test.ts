import fc from "fast-check";
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
    ["a path that normalises to a network path", "/..//evil.example/"],
    ["a deeper one", "/a/b/../../..//evil.example"],
    ["a dot segment before a double slash", "/.//evil.example"],
    ["encoded dot segments", "/%2e%2e//evil.example"],
    ["encoded dot segments in mixed case", "/%2E%2e/%2fevil.example"],
    ["an encoded slash after encoded dots", "/%2e%2e%2f/evil.example"],
    ["double encoding", "/%252e%252e%252f/evil.example"],
    ["an encoded backslash", "/%5c/evil.example"],
    ["an encoded tab", "/%09/evil.example"],
    ["an absolute URL of our own origin with a network path", "https://login.brand.example/..//evil.example"],
    ["an allowed host with a network path", "https://www.brand.example//evil.example"],
  ])("refuses %s", (_name, url) => {
    expect(checkReturnTo(url, policy)).toBeUndefined();
  });

  it("takes every *.localhost name for loopback (RFC 6761, as browsers resolve it): http when listed", () => {
    const local = { ...policy, allowedHosts: ["site.localhost", "localhost.brand.example"] };
    expect(checkReturnTo("http://site.localhost:5173/app", local)).toBe("http://site.localhost:5173/app");
    expect(checkReturnTo("http://other.localhost:5173/", local)).toBeUndefined();
    // A public name that merely starts with "localhost" is no loopback: https only.
    expect(checkReturnTo("http://localhost.brand.example/", local)).toBeUndefined();
    expect(checkReturnTo("https://localhost.brand.example/", local)).toBe("https://localhost.brand.example/");
  });

  it.each([
    ["an encoded space", "/de/my%20page", "https://login.brand.example/de/my%20page"],
    ["a non-ASCII escape", "/caf%C3%A9", "https://login.brand.example/caf%C3%A9"],
    ["dot segments that stay inside", "/a/./b/../c", "https://login.brand.example/a/c"],
    ["a double slash in the query", "/profile/edit?next=//x", "https://login.brand.example/profile/edit?next=//x"],
  ])("keeps %s", (_name, url, normalised) => {
    expect(checkReturnTo(url, policy)).toBe(normalised);
  });

  /** Pieces that browsers, routers and servers read in more than one way. */
  const PIECES = ["/", "//", "\\", ".", "..", "%2e", "%2E", "%2f", "%2F", "%5c", "%25", "%252e", "%252f", "%09", "%20"];
  const WORDS = ["a", "evil.example", "@", ":", "?", "#", "%", "x:y", "localhost"];
  const path = fc.array(fc.constantFrom(...PIECES, ...WORDS), { maxLength: 12 }).map((parts) => `/${parts.join("")}`);
  const self = new URL(policy.selfOrigin);

  /** Where a string lands when handed on as a path: resolved by the browser, after each decoding a server may do. */
  function landings(href: string): URL[] {
    const url = new URL(href);
    const paths = [url.pathname, decodeURIComponentSafe(url.pathname)];
    return paths.map((p) => new URL(p, url.origin));
  }
  function decodeURIComponentSafe(value: string): string {
    try {
      return decodeURIComponent(decodeURIComponent(value));
    } catch {
      return value;
    }
  }

  it("keeps every accepted path on our origin, as the browser, the router and a decoding server read it", () => {
    fc.assert(
      fc.property(path, (raw) => {
        const checked = checkReturnTo(raw, policy);
        if (checked === undefined) return;
        const url = new URL(checked);
        expect(url.origin).toBe(self.origin);
        expect(url.pathname.startsWith("//")).toBe(false);
        // The sign-in screen hands the part after our origin to the router, which resolves it against the page.
        const routed = new URL(checked.replace(self.origin, ""), `${self.origin}/some/page`);
        expect(routed.href).toBe(checked);
        for (const landing of landings(checked)) {
          expect(landing.origin).toBe(self.origin);
          expect(landing.pathname.startsWith("//")).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps every accepted absolute address on its allowed host with a plain path", () => {
    const host = fc.constantFrom("www.brand.example", "login.brand.example", "evil.example");
    fc.assert(
      fc.property(host, path, (h, p) => {
        const checked = checkReturnTo(`https://${h}${p}`, policy);
        if (checked === undefined) return;
        const url = new URL(checked);
        expect([...policy.allowedHosts, self.hostname]).toContain(url.hostname);
        for (const landing of landings(checked)) {
          expect(landing.origin).toBe(url.origin);
          expect(landing.pathname.startsWith("//")).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
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
