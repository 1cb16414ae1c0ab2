import { ROUTES } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { SCREEN_MODULES } from "../src/app/router.tsx";
import { SCREEN_FILES } from "../src/app/screen-files.ts";

describe("screen files", () => {
  it("names a loadable module for every built route, and no module that no route shows", () => {
    const named = Object.entries(SCREEN_FILES).map(([id, file]) => {
      expect(ROUTES).toHaveProperty(id);
      return `../screens/${file}.tsx`;
    });
    expect(Object.keys(SCREEN_MODULES).sort()).toEqual([...new Set(named)].sort());
  });
});
