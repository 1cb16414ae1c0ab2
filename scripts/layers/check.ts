/**
 * The layer check of packages/server/src (scripts/check-layers.ts runs it in `npm run lint`): reads every import of
 * every .ts file and names each one that runs against the order of ./table.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { LAYERS, PENDING, ROUTES_MAY_NOT_IMPORT } from "./table.ts";

/** One import of a file of src/ by another, paths relative to src/ with forward slashes. */
export interface Edge {
  from: string;
  to: string;
}

/** The static (`import … from`, `export … from`, `import "…"`) and literal dynamic imports of a source text. */
export function importSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

/** Every .ts file under a folder, relative to it. */
function sourceFiles(root: string, under = ""): string[] {
  const entries = readdirSync(join(root, under), { withFileTypes: true });
  // In name order, so every run names the same import first.
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries.flatMap((entry) => {
    const path = under ? `${under}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return sourceFiles(root, path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The imports between files of src/: relative specifiers that land inside it (packages and node: are not ours). */
export function readEdges(srcDir: string): Edge[] {
  const root = resolve(srcDir);
  return sourceFiles(root).flatMap((from) =>
    importSpecifiers(readFileSync(join(root, from), "utf8"))
      .filter((spec) => spec.startsWith("."))
      .map((spec) =>
        relative(root, resolve(root, dirname(from), spec))
          .split(sep)
          .join("/"),
      )
      .filter((to) => !to.startsWith("../") && to !== "..")
      .map((to) => ({ from, to })),
  );
}

/** A file's top-level entry of src/: its folder, or the file itself. */
export function entryOf(path: string): string {
  return path.split("/")[0] ?? path;
}

function layerOf(entry: string): number | undefined {
  const index = LAYERS.findIndex((layer) => layer.includes(entry));
  return index < 0 ? undefined : index + 1;
}

function describe(entry: string): string {
  return `layer ${layerOf(entry)} (${entry})`;
}

/** Strongly connected components of a graph with more than one node (Tarjan): the loops. */
export function loopsOf(nodes: readonly string[], next: (node: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const to of next(node)) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) loops.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return loops.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/**
 * Every import against the layer order, one line each; none when the tree keeps its layers. A problem that starts
 * with a `pending` entry is let pass; a `pending` entry that matches none is itself a problem (the list only shrinks).
 */
export function checkLayers(srcDir: string, pending: readonly string[] = PENDING): string[] {
  const problems = layerProblems(srcDir);
  const stale = pending.filter((entry) => !problems.some((problem) => problem.startsWith(entry)));
  return [
    ...problems.filter((problem) => !pending.some((entry) => problem.startsWith(entry))),
    ...stale.map((entry) => `${entry}: no longer occurs; take it off PENDING (scripts/layers/table.ts)`),
  ];
}

/** Every import against the layer order, one line each, pending or not. */
export function layerProblems(srcDir: string): string[] {
  const edges = readEdges(srcDir);
  const problems: string[] = [];
  const unplaced = new Set<string>();
  for (const { from, to } of edges) {
    const [a, b] = [entryOf(from), entryOf(to)];
    for (const entry of [a, b]) {
      if (layerOf(entry) === undefined && !unplaced.has(entry)) {
        unplaced.add(entry);
        problems.push(`${entry}: not in the layer table (scripts/layers/table.ts): give it a layer`);
      }
    }
    const [la, lb] = [layerOf(a), layerOf(b)];
    if (la !== undefined && lb !== undefined && lb > la) {
      problems.push(`${from} → ${to}: ${describe(a)} imports ${describe(b)}, a higher layer`);
    }
    if (a === "routes" && ROUTES_MAY_NOT_IMPORT.includes(b)) {
      problems.push(
        `${from} → ${to}: a route imports ${b === "routes" ? "another route" : "a store"} (call a service)`,
      );
    }
  }
  problems.push(...folderLoops(edges), ...fileLoops(edges));
  return problems;
}

/**
 * Folders (top-level entries) of one layer that import each other, directly or round a ring: one line per loop. An
 * import to a higher layer is named on its own above, so only the imports that keep the order are followed here.
 */
function folderLoops(edges: readonly Edge[]): string[] {
  const between = (a: string, b: string) => edges.find((e) => entryOf(e.from) === a && entryOf(e.to) === b);
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const [a, b] = [entryOf(from), entryOf(to)];
    const upward = (layerOf(b) ?? 0) > (layerOf(a) ?? 0);
    if (a !== b && !upward) next.set(a, (next.get(a) ?? new Set()).add(b));
  }
  return loopsOf([...next.keys()], (node) => [...(next.get(node) ?? [])]).map((loop) => {
    const ties = loop.flatMap((a) =>
      loop.flatMap((b) => {
        const edge = a === b ? undefined : between(a, b);
        return edge ? [`${edge.from} → ${edge.to}`] : [];
      }),
    );
    return `folder loop ${loop.join(" ↔ ")}: ${ties.join("; ")}`;
  });
}

/** Files that import each other, directly or round a ring: one line per circle. */
function fileLoops(edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  return loopsOf([...next.keys()], (node) => next.get(node) ?? []).map((loop) => `file circle ${loop.join(" ↔ ")}`);
}
