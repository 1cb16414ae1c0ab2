/** A catalog's later part (i18n/parts.ts), cut by the build's catalog plugin (vite.config.ts). */
declare module "@gatehouse/contract/i18n/*.json?later" {
  import type { Catalog } from "@gatehouse/contract";

  const part: Partial<Catalog>;
  export default part;
}
