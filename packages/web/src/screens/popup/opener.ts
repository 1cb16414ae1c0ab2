import { checkReturnTo, type ReturnPolicy } from "@gatehouse/contract";

/**
 * The sign-in popup (spec §2 "CLOSE"): a brand site opens sign-in in a popup whose return address is
 * `/close?origin=<the site's origin>`; /close posts POPUP_CLOSE_MESSAGE to its opener at that origin, then closes.
 * The page's protocol with the brand sites (docs/protocols.md "Desktop apps and the sign-in popup"), not with our server: it
 * lives here, out of the contract's shared chunk that every route loads.
 */
export const POPUP_OPENER_PARAM = "origin";

/** What /close posts to the window that opened the popup. */
export const POPUP_CLOSE_MESSAGE = { type: "gatehouse:popup-close" } as const;

/** The part of a window /close talks to: the opener receives one message, no more. */
export type Opener = Pick<Window, "postMessage">;

/**
 * The origin /close may post to, or undefined when refused. A page cannot read a cross-origin opener's address, so
 * the opener names its origin; it must be exactly an origin (scheme, host, port, as `location.origin` writes it)
 * on an allow-listed host or our own, under the return-address rules (ASVS 5.1.5). Without one, our own origin.
 * The browser delivers the message only when the opener really has that origin: a false claim reaches nobody.
 */
export function popupOpenerOrigin(claimed: string | null | undefined, policy: ReturnPolicy): string | undefined {
  if (claimed === null || claimed === undefined || claimed === "") return new URL(policy.selfOrigin).origin;
  const allowed = checkReturnTo(claimed, policy);
  if (!allowed) return undefined;
  const origin = new URL(allowed).origin;
  return claimed === origin ? origin : undefined;
}

/**
 * Where /close may tell its opener to close the popup: the allowed origin the opener claimed (or our own), or
 * undefined when there is no opener or the claim is refused.
 */
export function openerTarget(
  opener: Opener | null | undefined,
  claimed: string | null,
  policy: ReturnPolicy,
): string | undefined {
  return opener ? popupOpenerOrigin(claimed, policy) : undefined;
}

/**
 * Posts the close message to the opener at exactly `origin`, never "*": the browser drops it unless the opener's
 * document has that origin, so no other page that happens to be the opener learns anything (the sending side of
 * ASVS 3.5.5; the brand site's listener checks `event.origin` in turn, docs/protocols.md "Sign-in popup").
 */
export function tellOpener(opener: Opener, origin: string): void {
  opener.postMessage(POPUP_CLOSE_MESSAGE, origin);
}
