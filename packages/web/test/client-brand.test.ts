import { BRANDS } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { brandAt, clientBrandAt, serviceLoginReturn } from "../src/app/client-brand.tsx";

const ORIGIN = "http://localhost:8080";
const at = (address: string) => {
  const url = new URL(address, ORIGIN);
  return { pathname: url.pathname, search: url.search };
};
const returningTo = (path: string, returnTo: string) => at(`${path}?return_to=${encodeURIComponent(returnTo)}`);

describe("the client's brand through a site's or app's sign-in (issue #24 §2)", () => {
  it("is named by /service_login's own address", () => {
    expect(serviceLoginReturn("archviz")).toBe("/service_login?client_brand=archviz");
    expect(clientBrandAt(at(serviceLoginReturn("archviz")), ORIGIN)).toBe("archviz");
  });

  it("travels as the return address of the pages the sign-in leads to, relative or on this origin", () => {
    expect(clientBrandAt(returningTo("/register", "/service_login?client_brand=archviz"), ORIGIN)).toBe("archviz");
    const absolute = `${ORIGIN}/service_login?client_brand=engine`;
    expect(clientBrandAt(returningTo("/account/activate/login", absolute), ORIGIN)).toBe("engine");
    expect(brandAt(BRANDS.default, returningTo("/password/recover", absolute), ORIGIN)).toBe(BRANDS.engine);
  });

  it("honours only known brand ids", () => {
    expect(clientBrandAt(returningTo("/register", "/service_login?client_brand=evil"), ORIGIN)).toBeUndefined();
    expect(clientBrandAt(at("/service_login?client_brand=__proto__"), ORIGIN)).toBeUndefined();
    expect(brandAt(BRANDS.cloud, at("/service_login?client_brand=toString"), ORIGIN)).toBe(BRANDS.cloud);
  });

  it("is not taken from a return address that leads anywhere but /service_login on this origin", () => {
    expect(clientBrandAt(returningTo("/register", "/profile/edit?client_brand=archviz"), ORIGIN)).toBeUndefined();
    const elsewhere = "https://evil.example/service_login?client_brand=archviz";
    expect(clientBrandAt(returningTo("/register", elsewhere), ORIGIN)).toBeUndefined();
    expect(clientBrandAt(at("/register?client_brand=archviz"), ORIGIN)).toBeUndefined();
    expect(brandAt(BRANDS.cross, at("/login"), ORIGIN)).toBe(BRANDS.cross);
  });
});
