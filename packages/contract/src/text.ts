/** Spec §5: lengths are measured after trimming and collapsing whitespace. */
export function normalizeText(value: string): string {
  return value.trim().replace(/\s+/gu, " ");
}

/** Length in Unicode code points, so an emoji or a CJK character counts once. */
export function textLength(value: string): number {
  return [...value].length;
}
