/**
 * How each language's catalog is cut for the browser (issue #9: the login route's JavaScript stays within its
 * budget as screens and strings are added). The login route loads the first part with its chunks; the sections
 * only other screens show come in a second part per language, loaded (and preloaded by the host page) with those
 * screens' chunks. The e-mails' wording is the server's alone and never reaches a browser.
 */

/** The routes whose screens need only the first part. */
export const FIRST_PART_ROUTES: readonly string[] = ["LOGIN"];

/** Sections the login route and the app's frame never show. */
export const LATER_SECTIONS: readonly string[] = [
  "errorPage",
  "serviceLogin",
  "loginSuccess",
  "logout",
  "desktopApp",
  "register",
  "botCheck",
  "registerComplete",
  "activate",
  "recover",
  "reset",
  "setup",
  "change",
  "profile",
  "deleteAccount",
];

/** Sections only the server uses (the e-mails). */
export const SERVER_ONLY_SECTIONS: readonly string[] = ["mail"];

/** The import query that asks for a catalog's later part: `…/i18n/<language>.json?later`. */
export const LATER_PART_QUERY = "later";

/** A catalog as the browser gets it: its first part, or (`later`) its later part. */
export function catalogPart(catalog: Record<string, unknown>, later: boolean): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(catalog).filter(
      ([section]) => !SERVER_ONLY_SECTIONS.includes(section) && LATER_SECTIONS.includes(section) === later,
    ),
  );
}
