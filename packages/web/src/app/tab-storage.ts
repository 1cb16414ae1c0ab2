/** This tab's sessionStorage, or nothing where it is missing or refuses (a privacy mode): callers then do without. */
export function tabStorage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}
