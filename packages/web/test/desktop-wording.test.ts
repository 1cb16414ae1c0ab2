import { BRAND_IDS, BRANDS } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { desktopAppWording } from "../src/screens/desktop/wording.ts";

describe("desktop-app wording (spec §2: the Enscape variant)", () => {
  it("names Enscape on the visualisation brand's host", () => {
    expect(desktopAppWording(BRANDS.archviz, null)).toEqual({ kind: "named", app: "Enscape", brand: BRANDS.archviz });
  });

  it("is generic on the other brands' hosts", () => {
    for (const id of BRAND_IDS.filter((b) => b !== "archviz"))
      expect(desktopAppWording(BRANDS[id], undefined)).toEqual({ kind: "generic", brand: BRANDS[id] });
  });

  it("follows the client brand the provider names, on any host, its site included (issue #25)", () => {
    expect(desktopAppWording(BRANDS.default, "archviz")).toEqual({
      kind: "named",
      app: "Enscape",
      brand: BRANDS.archviz,
    });
    expect(desktopAppWording(BRANDS.archviz, "engine")).toEqual({ kind: "generic", brand: BRANDS.engine });
  });

  it("ignores a client brand that is not one", () => {
    for (const other of ["", "enscape", "ARCHVIZ", "archviz ", "__proto__", "toString"]) {
      expect(desktopAppWording(BRANDS.default, other)).toEqual({ kind: "generic", brand: BRANDS.default });
      expect(desktopAppWording(BRANDS.archviz, other)).toEqual({
        kind: "named",
        app: "Enscape",
        brand: BRANDS.archviz,
      });
    }
  });
});
