import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STAND_IN_CLIENT, type StandInIdp } from "../../../scripts/idp/stand-in.ts";

/** Providers files (IDPS_FILE) for the tests, written to a fresh temporary directory. */
export function writeProvidersFile(providers: object[]): string {
  const path = join(mkdtempSync(join(tmpdir(), "gatehouse-idps-")), "idps.json");
  writeFileSync(path, JSON.stringify({ providers }));
  return path;
}

/** One company's provider for bigcorp.example, never contacted: enough for the corporate hint and login modes. */
export const corporateOnlyFile = () =>
  writeProvidersFile([
    {
      id: "bigcorp",
      issuer: "https://idp.bigcorp.example",
      client_id: "gatehouse",
      client_secret: "secret",
      domains: ["bigcorp.example"],
    },
  ]);

/** Every provider at the stand-in (scripts/idp): Google and Trimble by discovery, Facebook's OAuth 2.0, Acme. */
export function standInProvidersFile(idp: StandInIdp): string {
  const facebook = idp.issuer("facebook");
  return writeProvidersFile([
    { id: "google", issuer: idp.issuer("google"), ...STAND_IN_CLIENT },
    {
      id: "facebook",
      protocol: "oauth2",
      issuer: facebook,
      authorization_endpoint: `${facebook}/auth`,
      token_endpoint: `${facebook}/token`,
      userinfo_endpoint: `${facebook}/me?fields=id,name,email,first_name,last_name`,
      ...STAND_IN_CLIENT,
    },
    { id: "trimble", issuer: idp.issuer("trimble"), ...STAND_IN_CLIENT },
    { id: "acme", name: "Acme Corporation", issuer: idp.issuer("acme"), domains: ["acme.example"], ...STAND_IN_CLIENT },
  ]);
}
