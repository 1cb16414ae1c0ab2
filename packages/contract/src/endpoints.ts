import { api } from "./api/index.ts";
import { securityApi } from "./api/security.ts";

/**
 * Every endpoint: the first-load declarations (`api`) and those of screens loaded later, which live in modules
 * imported by their own path so the sign-in route's JavaScript does not carry their schemas (issue #9's budget).
 * The server mounts, documents and tests every one of them.
 */
export const endpoints = { ...api, ...securityApi } as const;

export type ApiName = keyof typeof endpoints;
