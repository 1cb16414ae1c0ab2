import { SESSION_LINK_MARKER_COOKIE } from "@gatehouse/contract";
import type { Session } from "./session.ts";

/**
 * Linked sessions across brand hosts (spec §4, issue #10 §5): a brand host's page whose session "lacks Linked" goes
 * to the gateway's session link. A visitor here asks the central host for its session; a session here that has not
 * reached the central host is carried there. The server's round trip ends back on this page; a host that asked a
 * moment ago (its marker cookie) does not ask again, so a visitor never loops. Loaded only where the setting is on.
 */

const START = "/api/session/link/start";

const checkedRecently = () =>
  document.cookie.split("; ").some((cookie) => cookie.startsWith(`${SESSION_LINK_MARKER_COOKIE}=`));

/** Where this page must go to link its session, or undefined when it need not. */
export function sessionLinkTarget(session: Session | null, central: string, here: URL): string | undefined {
  if (checkedRecently()) return undefined;
  if (!session) {
    const query = new URLSearchParams({ from: central, return_to: `${here.pathname}${here.search}` });
    return `${here.origin}${START}?${query}`;
  }
  if (session.Linked) return undefined;
  return linkThroughCentral(central, here.href);
}

/** After a sign-in on this host: through the central host's link, so the sign-in reaches it, then to `destination`. */
export function linkThroughCentral(central: string, destination: string): string {
  const query = new URLSearchParams({ from: window.location.origin, return_to: destination });
  return `${central}${START}?${query}`;
}

export function linkSession(session: Session | null, central: string): void {
  const target = sessionLinkTarget(session, central, new URL(window.location.href));
  if (target) window.location.replace(target);
}
