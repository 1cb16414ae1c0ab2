import { readFileSync } from "node:fs";
import { STATUS_CODES } from "node:http";
import type { FastifyDynamicSwaggerOptions } from "@fastify/swagger";
import { type Endpoint, ErrorAnswer, RATE_LIMITS, statusesOf } from "@gatehouse/contract";
import { type ApiName, endpoints } from "@gatehouse/contract/endpoints";
import type { FastifySchema } from "fastify";
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod/mini";
import type { Config } from "../config.ts";
import { routePath } from "./mount.ts";
import { componentRegistry, type OpenApiDocument, tidyComponents } from "./openapi-components.ts";
import { sessionCookieName } from "./session.ts";

/**
 * The OpenAPI 3.1 document of the gateway (issue #14), generated from the contract (STYLE.md §1: one schema, three
 * uses): @fastify/swagger collects the routes as they are declared, and for each one mounted from a contract
 * declaration the transform below hands fastify-type-provider-zod's converter the declaration's schemas, with what
 * the declaration implies besides (its error statuses with the spec's error object, its security, its rate limit).
 * Nothing is written for the document alone: a new endpoint appears when it is mounted, and a route that is not
 * in the contract (pages, assets, the document itself) is left out.
 */

const SERVER_PACKAGE = new URL("../../package.json", import.meta.url);

/** The version the document states: the server package's. */
export function apiVersion(): string {
  const { version } = JSON.parse(readFileSync(SERVER_PACKAGE, "utf8")) as { version?: string };
  return version ?? "0.0.0";
}

/** The operational routes outside /api that operators point their probes at, described here as they are. */
const HealthAnswer = z.object({ status: z.enum(["ok", "unavailable"]) });
const OPERATIONAL: Record<string, { operationId: string; description: string; statuses: readonly number[] }> = {
  "/healthz": {
    operationId: "healthz",
    description: "Liveness: the process is up and answering.",
    statuses: [200],
  },
  "/readyz": {
    operationId: "readyz",
    description: "Readiness: the database answers. 503 while it does not; a load balancer stops sending traffic.",
    statuses: [200, 503],
  },
};

/** The security schemes' names in the document, and the header the CSRF token travels in (http/session.ts). */
const SESSION = "session";
const CSRF = "csrf";
const CSRF_HEADER_NAME = "X-CSRF-Token";

/**
 * The groups of operations (the first segment of their paths, `tagOf`) in the order the viewer lists them; a group
 * missing here is listed after them.
 */
const TAGS = [
  { name: "session", description: "The browser's gateway session, and linked sessions between brand hosts." },
  { name: "account", description: "Sign-in, registration, activation, passwords, profile, identities, trials." },
  { name: "captcha", description: "The bot checks: the image captcha (CN) and the proof-of-work challenge." },
  { name: "countries", description: "The country list of the forms, in the visitor's language." },
  { name: "federation", description: "Where social and corporate identity providers send the browser back." },
  { name: "service_login", description: "The sign-in a site or app asked the OpenID Connect provider for." },
  { name: "legacy_token", description: "Tokens for legacy sites (a browser navigation)." },
  { name: "discourse", description: "The forum's DiscourseConnect sign-in." },
  { name: "studio", description: "The studio sign-in and its licence helper." },
  { name: "operations", description: "Probes for load balancers and orchestrators (outside /api)." },
];

/** The contract endpoint each route was mounted from, by method and Fastify path (`mount`, http/mount.ts). */
const BY_ROUTE = new Map<string, [ApiName, Endpoint]>(
  (Object.entries(endpoints) as [ApiName, Endpoint][]).map(([name, endpoint]) => [
    `${endpoint.method} ${routePath(endpoint)}`,
    [name, endpoint],
  ]),
);

/** The group an operation is listed under: the first segment of its path (`account`, `session`, `captcha`…). */
function tagOf(endpoint: Endpoint): string {
  return endpoint.path.split("/")[1] ?? "api";
}

function describeRateLimit(endpoint: Endpoint): string | undefined {
  if (!endpoint.rateLimit) return undefined;
  const { max, windowMs } = RATE_LIMITS[endpoint.rateLimit];
  const minutes = windowMs / 60_000;
  return `Rate limit \`${endpoint.rateLimit}\`: ${max} calls per ${minutes} minutes per client address, then 429 \`rate_limited\` with \`Retry-After\`.`;
}

/**
 * Who may call: every call but a GET needs the session cookie and its CSRF token echoed in X-CSRF-Token (both
 * handed out by `GET /api/session`); an account call needs a signed-in session. A public GET needs nothing.
 */
function securityOf(endpoint: Endpoint): Record<string, string[]>[] | undefined {
  if (endpoint.method !== "GET") return [{ [SESSION]: [], [CSRF]: [] }];
  if (endpoint.session === "required") return [{ [SESSION]: [] }];
  return undefined;
}

/** Answers without a JSON body, described by their status and headers (`type: "null"`: no content). */
function bodilessAnswer(status: number) {
  if (status === 204)
    return { type: "null", description: "No Content: nothing to answer (a visitor without a session)." };
  return {
    type: "null",
    description: `${STATUS_CODES[status]}: the browser is sent on (every outcome of this navigation is a redirect).`,
    headers: { location: { type: "string", description: "Where the browser goes next." } },
  };
}

/** What an error status means on this endpoint, beyond its own refusals: the ones its declaration implies (statusesOf). */
function impliedRefusals(endpoint: Endpoint, status: number): string[] {
  const implied: string[] = [];
  if (status === 401 && endpoint.session === "required")
    implied.push("`not_authenticated` without a signed-in session");
  if (status === 403 && endpoint.method !== "GET")
    implied.push(`\`csrf_invalid\` without the session's ${CSRF_HEADER_NAME}`);
  if (status === 429 && endpoint.rateLimit) implied.push("`rate_limited` over the rate limit");
  return implied;
}

/**
 * The converted answer of one status with its description. A reference takes it beside itself (@fastify/swagger
 * reads it from there); an inline schema through `x-response-description`, so it does not land in the schema.
 */
function describedAnswer(schema: object, endpoint: Endpoint, status: number): object {
  let description = STATUS_CODES[status] ?? String(status);
  if (status >= 400) {
    const implied = impliedRefusals(endpoint, status);
    description += `: the error object, whose \`error_code\` says why${implied.length > 0 ? `, e.g. ${implied.join("; ")}` : ""}.`;
  }
  const headers =
    status === 429
      ? { headers: { "retry-after": { type: "integer", description: "Seconds until the next call may succeed." } } }
      : {};
  return "$ref" in schema
    ? { ...schema, description, ...headers }
    : { ...schema, "x-response-description": description, ...headers };
}

/** Every call may fail unexpectedly, or while the database is unreachable, whatever it declares. */
const UNEXPECTED_ANSWER = {
  $ref: "#/components/schemas/ErrorAnswer",
  description:
    "The error object: 500 `internal_server_error` (its `guid` is in the log line of the failure), or 503 `service_unavailable` while the database is unreachable.",
};

/**
 * The route schema the converter gets for a contract endpoint: its body, query and path parameters, its answer
 * for each success status and the error object for each error status (statusesOf: the declared ones and those
 * the declaration implies). Redirects and empty answers are added after the conversion, as bare responses.
 */
function operationSchema(name: ApiName, endpoint: Endpoint) {
  const response: Record<number, z.ZodMiniType> = {};
  const bodiless: Record<number, object> = {};
  for (const status of [...statusesOf(endpoint)].sort((a, b) => a - b)) {
    if (status === 204 || (status >= 300 && status < 400)) bodiless[status] = bodilessAnswer(status);
    else response[status] = status >= 400 ? ErrorAnswer : endpoint.answer;
  }
  const security = securityOf(endpoint);
  const rateLimit = describeRateLimit(endpoint);
  return {
    schema: {
      operationId: name,
      tags: [tagOf(endpoint)],
      ...(rateLimit ? { description: rateLimit } : {}),
      ...(security ? { security } : {}),
      ...(endpoint.body ? { body: endpoint.body } : {}),
      ...(endpoint.query ? { querystring: endpoint.query } : {}),
      ...(endpoint.params ? { params: endpoint.params } : {}),
      response,
    },
    bodiless,
  };
}

/** The converted responses of an endpoint, each with its description, and the bare and unexpected ones added. */
function responsesOf(converted: Record<string, object>, endpoint: Endpoint, bodiless: Record<number, object>) {
  const described = Object.entries(converted).map(([status, schema]) => [
    status,
    describedAnswer(schema, endpoint, Number(status)),
  ]);
  return { ...Object.fromEntries(described), ...bodiless, default: UNEXPECTED_ANSWER };
}

/**
 * The options of @fastify/swagger for this configuration. `servers` names PUBLIC_URL; the routes that serve the
 * document put the origin it was asked on instead when that is one of ours (every brand host serves the API).
 */
export function openapiOptions(config: Config): FastifyDynamicSwaggerOptions {
  const schemaRegistry = componentRegistry();
  const convert = createJsonSchemaTransform({ schemaRegistry, skipList: [] });
  const components = createJsonSchemaTransformObject({ schemaRegistry });
  const publicUrl = config.publicUrl.origin;
  return {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Gatehouse gateway API",
        version: apiVersion(),
        description: [
          "The gateway the Gatehouse web app calls, under `/api` on every brand host of the service.",
          "",
          "Every error answers the spec's error object (`ErrorAnswer`): `HTTPStatus`, `message`, `guid`, `error_code`, `error_message`, `error_guid`, plus `fields` for validation and `temporary` for blocks. Clients translate by `error_code`.",
          "",
          `Sessions: \`GET /api/session\` hands a browser its session cookie and, in the \`${CSRF_HEADER_NAME}\` header, the CSRF token that every call but a GET must send back.`,
          "",
          `Sites and apps sign people in through the OpenID Connect provider at \`${publicUrl}/oidc\` (see its discovery document), not through this API. Operators probe \`GET /healthz\` (process up) and \`GET /readyz\` (database reachable).`,
        ].join("\n"),
      },
      servers: [{ url: publicUrl }],
      tags: TAGS,
      externalDocs: {
        description: "OpenID Connect discovery of the provider (issuer PUBLIC_URL/oidc)",
        url: `${publicUrl}/oidc/.well-known/openid-configuration`,
      },
      components: {
        securitySchemes: {
          [SESSION]: {
            type: "apiKey",
            in: "cookie",
            name: sessionCookieName(config.publicUrl),
            description: "The gateway session: opaque, HttpOnly, SameSite=Lax; set by the gateway's answers.",
          },
          [CSRF]: {
            type: "apiKey",
            in: "header",
            name: CSRF_HEADER_NAME,
            description: "The session's CSRF token, as `GET /api/session` answers it in this header.",
          },
        },
      },
    },
    transform: ({ schema, url, route, ...document }) => {
      const methods = [route.method].flat();
      const found = methods.length === 1 ? BY_ROUTE.get(`${methods[0]} ${url}`) : undefined;
      if (found) {
        const { schema: declared, bodiless } = operationSchema(...found);
        const converted = convert({ schema: declared, url, route, ...document }).schema;
        const response = responsesOf(converted.response as Record<string, object>, found[1], bodiless);
        return { schema: { ...converted, response }, url };
      }
      const operational = methods[0] === "GET" ? OPERATIONAL[url] : undefined;
      if (operational) {
        const { statuses, ...rest } = operational;
        const response = Object.fromEntries(statuses.map((status) => [status, HealthAnswer]));
        return convert({ schema: { ...rest, tags: ["operations"], response }, url, route, ...document });
      }
      return { schema: { hide: true } as FastifySchema, url };
    },
    transformObject: (document) =>
      tidyComponents(components(document) as OpenApiDocument) as ReturnType<typeof components>,
  };
}
