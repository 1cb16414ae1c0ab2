import { type AnswerOf, api, routeUrl } from "@gatehouse/contract";
import { type LoaderFunctionArgs, redirect } from "react-router";
import { gateway } from "../api/index.ts";

export type Session = NonNullable<AnswerOf<typeof api.session>>;

/** The signed-in session, or null for a visitor. 5xx and network failures go to the route's error screen. */
export function fetchSession(): Promise<Session | null> {
  return gateway().call(api.session);
}

/** Loader of routes that need a signed-in user (spec §6): visitors go to sign-in and come back after. */
export async function requireSession({ request }: LoaderFunctionArgs): Promise<Session> {
  const session = await fetchSession();
  if (!session) {
    const url = new URL(request.url);
    throw redirect(routeUrl("LOGIN", { return_to: url.href }));
  }
  return session;
}
