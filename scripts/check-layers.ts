/**
 * `npm run lint`'s layer check: fails, naming each import, when a module of packages/server/src imports a higher
 * layer, a route imports a store or another route, or folders or files import each other in a loop
 * (scripts/layers/table.ts holds the order; docs/decisions.md "Layers of the server" says why).
 */
import { resolve } from "node:path";
import { checkLayers } from "./layers/check.ts";
import { PENDING } from "./layers/table.ts";

// Another tree (the check's own test) is checked without the server's pending list.
const [tree] = process.argv.slice(2);
const srcDir = resolve(import.meta.dirname, "..", tree ?? "packages/server/src");
const problems = checkLayers(srcDir, tree === undefined ? PENDING : []);
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(`\n${problems.length} import(s) against the server's layers (scripts/layers/table.ts).`);
  process.exit(1);
}
console.log("Server layers: every import runs downwards.");
