import Bowser from "bowser";

/** A browser and operating system in words, from a user agent (issue #27: the security page's sessions and events). */
export interface DeviceWords {
  browser: string | null;
  os: string | null;
}

/** Parsed once per distinct user agent: a page of 20 entries usually holds two or three. */
const parsed = new Map<string, DeviceWords>();
const PARSED_MAX = 1000;

/**
 * "Firefox 133" and "Windows 10", by Bowser (a maintained parser); null for what it cannot tell. Only the browser's
 * major version: the rest says nothing to a person and more about them to anyone who reads it.
 */
export function deviceOf(userAgent: string | null | undefined): DeviceWords {
  if (!userAgent) return { browser: null, os: null };
  const known = parsed.get(userAgent);
  if (known) return known;
  const words = parse(userAgent);
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(userAgent, words);
  return words;
}

function parse(userAgent: string): DeviceWords {
  const result = Bowser.parse(userAgent);
  const major = result.browser.version?.split(".")[0];
  const browser = result.browser.name ? [result.browser.name, major].filter(Boolean).join(" ") : null;
  const osVersion = result.os.versionName ?? result.os.version;
  const os = result.os.name ? [result.os.name, osVersion].filter(Boolean).join(" ") : null;
  return { browser, os };
}
