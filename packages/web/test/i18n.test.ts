import { englishCatalog, LANGUAGE_CODES, ROUTE_IDS, ROUTES } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { routeIdFor } from "../src/app/router.tsx";
import { fetchCatalog } from "../src/i18n/catalogs.ts";

describe("catalogs", () => {
  it.each(LANGUAGE_CODES)("loads the %s catalog as a chunk of its own", async (language) => {
    const catalog = await fetchCatalog(language);
    expect(Object.keys(catalog).sort()).toEqual(Object.keys(englishCatalog).sort());
  });
});

describe("routeIdFor", () => {
  it("finds every route of spec §2 by its path, case and a trailing slash aside", () => {
    for (const id of ROUTE_IDS) {
      expect(routeIdFor(ROUTES[id].path)).toBe(id);
      expect(routeIdFor(`${ROUTES[id].path.toUpperCase()}/`)).toBe(id);
    }
  });

  it("finds nothing for other paths", () => {
    expect(routeIdFor("/nope")).toBeUndefined();
    expect(routeIdFor("/profile/edit/x")).toBeUndefined();
    expect(routeIdFor("//profile/edit")).toBeUndefined();
  });
});
