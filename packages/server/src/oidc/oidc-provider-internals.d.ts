/**
 * The installed oidc-provider's own key-set loader (lib/helpers/initialize_keystore.js, 9.x): called on a provider,
 * it validates a JWKS and replaces the keys the provider signs with and publishes, as its constructor does with
 * `jwks`. The package has no `exports` map, so the file is importable; oidc/keys.ts uses it to pick up a rotation.
 */
declare module "oidc-provider/lib/helpers/initialize_keystore.js" {
  import type Provider from "oidc-provider";
  export default function initializeKeyStore(this: Provider, jwks: { keys: Record<string, unknown>[] }): void;
}
