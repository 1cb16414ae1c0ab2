import { HOST_SETTINGS_ELEMENT_ID } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { readHostSettings, type SettingsSource } from "../src/app/settings.ts";

/** A page at `href` whose HTML carries the server's settings (or none, as under Vite's dev server). */
function pageAt(href: string, settings?: object): SettingsSource {
  const element = settings ? { textContent: JSON.stringify(settings) } : null;
  return {
    getElementById: (id: string) => (id === HOST_SETTINGS_ELEMENT_ID ? (element as HTMLElement | null) : null),
    location: { href, origin: new URL(href).origin },
  };
}

const written = (gatewayUrl: string) => ({
  brand: "archviz",
  gatewayUrl,
  publicUrl: "http://localhost:8080",
  flags: {},
  returnHosts: [],
  language: "de",
  country: "DE",
  botCheck: { provider: "altcha" },
});

describe("host-page settings", () => {
  it("calls the gateway on the origin the page was loaded from, on every brand host", () => {
    for (const origin of ["http://archviz.localhost:5123", "https://login.cloud.gatehouse.example"])
      expect(readHostSettings(pageAt(`${origin}/register?x=1`, written("/api"))).gatewayUrl).toBe(`${origin}/api`);
  });

  it("calls a separately configured gateway as given", () => {
    const settings = readHostSettings(pageAt("https://login.archviz.example/", written("https://gw.example.com/api")));
    expect(settings.gatewayUrl).toBe("https://gw.example.com/api");
    expect(settings.brand).toBe("archviz");
  });

  it("falls back to /api on the page's origin without settings", () => {
    expect(readHostSettings(pageAt("http://localhost:5173/")).gatewayUrl).toBe("http://localhost:5173/api");
  });
});
