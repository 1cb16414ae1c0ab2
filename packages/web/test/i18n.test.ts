import { englishCatalog, LANGUAGE_CODES, ROUTE_IDS, ROUTES } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { routeIdFor } from "../src/app/router.tsx";
import { fetchCatalog } from "../src/i18n/catalogs.ts";
import { translate } from "../src/i18n/translate.ts";

describe("translate (the catalogs' {{name}} interpolation)", () => {
  it("fills every placeholder, spaces inside the braces allowed, values as given", () => {
    const catalog = { a: { b: "{{ name }} <{{email}}> and {{name}} again, {{count}}" } };
    expect(translate(catalog, "a.b", { name: "Ann & <b>", email: "a@x", count: 3 })).toBe(
      "Ann & <b> <a@x> and Ann & <b> again, 3",
    );
  });

  it("keeps a placeholder without a value as written, and the text as is without values", () => {
    expect(translate({ k: "Hi {{name}}" }, "k", {})).toBe("Hi {{name}}");
    expect(translate({ k: "Hi {{name}}" }, "k")).toBe("Hi {{name}}");
  });

  it("shows the key for a missing key, a key naming a section, or no catalog at all", () => {
    expect(translate(englishCatalog, "login.nope")).toBe("login.nope");
    expect(translate(englishCatalog, "login")).toBe("login");
    expect(translate(undefined, "login.submit")).toBe("login.submit");
    expect(translate(englishCatalog, "constructor")).toBe("constructor");
  });

  it("reads the English catalog's texts", () => {
    expect(translate(englishCatalog, "app.pageTitle", { title: "Sign in", brand: "Acme" })).toBe(
      englishCatalog.app.pageTitle.replace("{{title}}", "Sign in").replace("{{brand}}", "Acme"),
    );
  });

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
