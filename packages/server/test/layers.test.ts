import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkLayers, layerProblems } from "../../../scripts/layers/check.ts";
import { PENDING } from "../../../scripts/layers/table.ts";

const ROOT = resolve(import.meta.dirname, "../../..");
const SERVER_SRC = join(ROOT, "packages/server/src");

/** A throw-away src/ tree of the given files (path → text). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "gatehouse-layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A tree that keeps the order: each file imports only its own layer or lower ones. */
const ORDERLY = {
  "config.ts": "export const env = 1;\n",
  "store/users.ts": 'import { env } from "../config.ts";\nexport const users = env;\n',
  "metrics/counts.ts": 'import { users } from "../store/users.ts";\nexport const counted = users;\n',
  "http/errors.ts": 'import { counted } from "../metrics/counts.ts";\nexport const sent = counted;\n',
  "routes/login.ts": 'import { sent } from "../http/errors.ts";\nexport const login = sent;\n',
};

describe("the server's layer check (npm run lint)", () => {
  it("passes a tree whose imports all run downwards", () => {
    expect(checkLayers(tree(ORDERLY), [])).toEqual([]);
  });

  it("fails on an import of a higher layer, naming the import and both layers", () => {
    const root = tree({ ...ORDERLY, "metrics/serve.ts": 'import { sent } from "../http/errors.ts";\nsent;\n' });
    expect(checkLayers(root, [])).toEqual([
      "metrics/serve.ts → http/errors.ts: layer 3 (metrics) imports layer 6 (http), a higher layer",
    ]);
  });

  it("reads re-exports, side-effect imports and literal dynamic imports too", () => {
    const root = tree({
      ...ORDERLY,
      "store/again.ts": 'export { counted } from "../metrics/counts.ts";\n',
      "store/effect.ts": 'import "../http/errors.ts";\n',
      "store/lazy.ts": 'export const later = () => import("../routes/login.ts");\n',
    });
    expect(checkLayers(root, [])).toEqual([
      "store/again.ts → metrics/counts.ts: layer 2 (store) imports layer 3 (metrics), a higher layer",
      "store/effect.ts → http/errors.ts: layer 2 (store) imports layer 6 (http), a higher layer",
      "store/lazy.ts → routes/login.ts: layer 2 (store) imports layer 9 (routes), a higher layer",
    ]);
  });

  it("fails on a route that imports a store or another route", () => {
    const root = tree({
      ...ORDERLY,
      "routes/profile.ts": 'import { users } from "../store/users.ts";\nimport { login } from "./login.ts";\n',
    });
    expect(checkLayers(root, [])).toEqual([
      "routes/profile.ts → store/users.ts: a route imports a store (call a service)",
      "routes/profile.ts → routes/login.ts: a route imports another route (call a service)",
    ]);
  });

  it("fails on folders of one layer that import each other, and on files in a circle", () => {
    const root = tree({
      ...ORDERLY,
      "mail/outbox.ts": 'import { pass } from "../jobs/worker.ts";\nexport const queued = pass;\n',
      "jobs/worker.ts": 'import { queued } from "../mail/outbox.ts";\nexport const pass = queued;\n',
    });
    expect(checkLayers(root, [])).toEqual([
      "folder loop jobs ↔ mail: jobs/worker.ts → mail/outbox.ts; mail/outbox.ts → jobs/worker.ts",
      "file circle jobs/worker.ts ↔ mail/outbox.ts",
    ]);
  });

  it("asks for a layer for a folder the table does not place", () => {
    const root = tree({ ...ORDERLY, "extra/thing.ts": 'import { env } from "../config.ts";\nenv;\n' });
    expect(checkLayers(root, [])).toEqual(["extra: not in the layer table (scripts/layers/table.ts): give it a layer"]);
  });

  it("lets a pending problem pass, and fails once it no longer occurs", () => {
    const root = tree({ ...ORDERLY, "metrics/serve.ts": 'import "../http/errors.ts";\n' });
    expect(checkLayers(root, ["metrics/serve.ts → http/errors.ts"])).toEqual([]);
    expect(checkLayers(tree(ORDERLY), ["metrics/serve.ts → http/errors.ts"])).toEqual([
      "metrics/serve.ts → http/errors.ts: no longer occurs; take it off PENDING (scripts/layers/table.ts)",
    ]);
  });

  it("exits 1 from the command line, naming the import", () => {
    const root = tree({ ...ORDERLY, "metrics/serve.ts": 'import { sent } from "../http/errors.ts";\nsent;\n' });
    const run = spawnSync(process.execPath, [join(ROOT, "scripts/check-layers.ts"), root], { encoding: "utf8" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("metrics/serve.ts → http/errors.ts: layer 3 (metrics) imports layer 6 (http)");
  });

  it("passes the server's own tree, but for the pending imports of the sign-in core's files", () => {
    expect(checkLayers(SERVER_SRC)).toEqual([]);
    // Exactly one problem for each pending entry: the rewrite of the sign-in core (issue #24 §1) removes them.
    const problems = layerProblems(SERVER_SRC);
    expect(problems).toHaveLength(PENDING.length);
    for (const entry of PENDING) expect(problems.filter((problem) => problem.startsWith(entry))).toHaveLength(1);
  });
});
