import type { Endpoint } from "@gatehouse/contract";
import * as contract from "@gatehouse/contract";
import { endpoints } from "@gatehouse/contract/endpoints";
import { z } from "zod/mini";

/**
 * The document's named schemas (http/openapi.ts): the contract's exported zod schemas under their export names, and
 * the tidying of what the converter makes of them.
 */

/**
 * The contract's exported schemas by name, as the document's components: a client generator gets `LoginBody` and
 * `ErrorAnswer` rather than anonymous shapes. Query and path parameter schemas stay inline: OpenAPI lists their
 * fields one by one as parameters, which a reference cannot express.
 */
export function componentRegistry() {
  const parameters = new Set<unknown>(Object.values(endpoints).flatMap((e: Endpoint) => [e.query, e.params]));
  const registry = z.registry<{ id: string }>();
  for (const [name, value] of Object.entries(contract)) {
    if (/^[A-Z]/u.test(name) && value instanceof z.core.$ZodType && !parameters.has(value)) {
      registry.add(value, { id: name });
    }
  }
  return registry;
}

export interface OpenApiDocument {
  paths?: unknown;
  components?: { schemas?: Record<string, unknown> };
  [key: string]: unknown;
}

const REF = "#/components/schemas/";
const REFERENCE = /"#\/components\/schemas\/([^"]+)"/gu;

/** The components a part of the document refers to, directly or through other components. */
function reachedFrom(part: unknown, schemas: Record<string, unknown>): Set<string> {
  const reached = new Set<string>();
  const queue = [part];
  while (queue.length > 0) {
    for (const [, id] of JSON.stringify(queue.pop()).matchAll(REFERENCE)) {
      if (id === undefined || reached.has(id)) continue;
      reached.add(id);
      queue.push(schemas[id]);
    }
  }
  return reached;
}

/**
 * The converter lists every registered schema twice, as read (`LoginBodyInput`) and as answered (`LoginBody`), used
 * or not. Only those the operations reach stay, and one read as it is answered (all of ours but those with
 * defaults), or only read, keeps its contract name alone.
 */
export function tidyComponents(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components?.schemas ?? {};
  const reached = reachedFrom(document.paths, schemas);
  const names = new Map<string, string>();
  for (const id of reached) {
    const name = id.replace(/Input$/u, "");
    const merged = name !== id && (!reached.has(name) || JSON.stringify(schemas[name]) === JSON.stringify(schemas[id]));
    names.set(id, merged ? name : id);
  }
  const kept: Record<string, unknown> = {};
  for (const [id, name] of names) kept[name] ??= schemas[id];
  const renamed = (part: unknown) =>
    JSON.parse(JSON.stringify(part).replace(REFERENCE, (_, id: string) => `"${REF}${names.get(id) ?? id}"`));
  return {
    ...document,
    paths: renamed(document.paths),
    components: { ...document.components, schemas: renamed(kept) },
  };
}
