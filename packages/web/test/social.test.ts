import type { HostSettings } from "@gatehouse/contract";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { offeredPlatforms } from "../src/screens/login/social.ts";
import { hintFrom, type Pending, pendingUrl } from "../src/screens/social/pending.ts";
import { forgetRegistered, recallRegistered, rememberRegistered } from "../src/screens/social/registered.ts";
import { tagged } from "../src/ui/tagged.tsx";

describe("the query's hint of a pending social sign-in (issue #11)", () => {
  it("reads the address, platform and names of spec §2's query", () => {
    const params = new URLSearchParams("platform=google&email=a%40b.example&firstName=Ada&lastName=L&fullName=Ada+L");
    expect(hintFrom(params)).toEqual({
      email: "a@b.example",
      platform: "google",
      firstName: "Ada",
      lastName: "L",
      fullName: "Ada L",
    });
  });

  it("drops a platform that is not one, makes the full name from the names, and is nothing without an address", () => {
    expect(hintFrom(new URLSearchParams("platform=myspace&email=a%40b.example&firstName=Ada&lastName=L"))).toEqual({
      email: "a@b.example",
      firstName: "Ada",
      lastName: "L",
      fullName: "Ada L",
    });
    expect(hintFrom(new URLSearchParams("platform=google&firstName=Ada"))).toBeUndefined();
  });
});

describe("the screen of a pending answer", () => {
  const pending: Pending = {
    kind: "register",
    platform: "facebook",
    email: "a@b.example",
    emailVerified: false,
    firstName: "Ada",
    lastName: "L",
    fullName: "Ada L",
    returnTo: "https://www.gatehouse.example/x",
  };

  it("is social registration with spec §2's query for a new person", () => {
    const url = new URL(pendingUrl(pending), "http://localhost");
    expect(url.pathname).toBe("/register/social");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      platform: "facebook",
      email: "a@b.example",
      firstName: "Ada",
      lastName: "L",
      fullName: "Ada L",
      return_to: "https://www.gatehouse.example/x",
    });
  });

  it("is the link screen with the address for an existing account", () => {
    expect(pendingUrl({ ...pending, kind: "link", returnTo: undefined })).toBe(
      "/link/existing/social?email=a%40b.example",
    );
  });
});

describe("what social registration hands its complete screen", () => {
  const store = new Map<string, string>();
  beforeEach(() => {
    store.clear();
    Object.assign(globalThis, {
      sessionStorage: {
        getItem: (key: string) => store.get(key) ?? null,
        setItem: (key: string, value: string) => void store.set(key, value),
        removeItem: (key: string) => void store.delete(key),
      },
    });
  });
  afterEach(() => {
    Reflect.deleteProperty(globalThis, "sessionStorage");
  });
  const done = { email: "a@b.example", fullName: "Ada L", activation: true, returnTo: "/profile/edit" };

  it("travels in the history state, and in the tab's storage for a reload", () => {
    const state = rememberRegistered(done);
    expect(recallRegistered(state)).toEqual(done);
    expect(recallRegistered(null)).toEqual(done);
    forgetRegistered();
    expect(recallRegistered(null)).toBeUndefined();
  });

  it("ignores what does not have the answer's shape", () => {
    store.set("gatehouse.socialRegistered", "{not json");
    expect(recallRegistered({ socialRegistered: { email: "a@b.example" } })).toBeUndefined();
    store.set("gatehouse.socialRegistered", JSON.stringify({ email: 1 }));
    expect(recallRegistered(undefined)).toBeUndefined();
  });
});

describe("which providers' buttons a page shows", () => {
  const settings = (socialPlatforms: HostSettings["socialPlatforms"], social: boolean) =>
    ({ socialPlatforms, flags: { SOCIAL_REGISTER: social } }) as HostSettings;

  it("shows Google and Facebook under SOCIAL_REGISTER and Trimble under its own flag, each only when set up", () => {
    expect(offeredPlatforms(settings(["google", "facebook", "trimble"], true), true)).toEqual([
      "google",
      "facebook",
      "trimble",
    ]);
    expect(offeredPlatforms(settings(["google", "trimble"], true), false)).toEqual(["google"]);
    expect(offeredPlatforms(settings(["google", "facebook", "trimble"], false), true)).toEqual(["trimble"]);
    expect(offeredPlatforms(settings([], true), true)).toEqual([]);
  });
});

describe("one tag of a translation (the sign-in page without Trans)", () => {
  const link = (words: string) => createElement("a", { href: "/account/recover" }, words);
  const html = (node: ReturnType<typeof tagged>) => renderToStaticMarkup(createElement("p", null, node));

  it("renders the tag's words with the given element, the text around them as text", () => {
    expect(html(tagged("Please use <recover>Forgot your password?</recover> to regain access.", "recover", link))).toBe(
      '<p>Please use <a href="/account/recover">Forgot your password?</a> to regain access.</p>',
    );
  });

  it("leaves a text without the tag as it is, and escapes what is not the tag", () => {
    expect(html(tagged("No link <b>here</b>", "recover", link))).toBe("<p>No link &lt;b&gt;here&lt;/b&gt;</p>");
    expect(html(tagged("<recover>a & b</recover>", "recover", link))).toBe(
      '<p><a href="/account/recover">a &amp; b</a></p>',
    );
  });
});
