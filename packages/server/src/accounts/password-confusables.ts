/**
 * Letters of other scripts that look like Latin letters (ASVS 6.2.4): "Раssword" with a Cyrillic "Р" and "а" is
 * "Password" to the eye and to a cracker's homoglyph rules. A small table of the common confusables: the letters of
 * Unicode's confusables.txt that look like a Latin letter in Cyrillic, Greek, Armenian and Cherokee, the small
 * capitals of "fancy text" generators, and Latin letters NFKD leaves whole (with a stroke, the wynn). It is read
 * before lower-casing because case changes the look ("Ν" is an "N", "ν" a "v"). A UTS #39 skeleton library would
 * also map Latin to Latin ("1" → "l", "0" → "O"), which our case folding and look-alike readings already do their
 * own way, so it is not used.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  A: "АΑᎪ",
  a: "аαᴀ",
  B: "ВΒᏴ",
  b: "ьƀʙ",
  C: "СᏟ",
  c: "сᴄ",
  D: "ԀĐᎠ",
  d: "ԁđᴅ",
  E: "ЕΕᎬ",
  e: "еεᴇ",
  G: "Ꮐ",
  g: "ɢ",
  H: "НΗҺĦᎻ",
  h: "һհħʜ",
  I: "ІΙӀ",
  i: "іιıɪ",
  J: "ЈᎫ",
  j: "јᴊ",
  K: "КΚᏦ",
  k: "κᴋ",
  L: "ŁᏞ",
  l: "ӏłʟ",
  M: "МΜᎷ",
  m: "ᴍ",
  N: "Ν",
  n: "ηոɴ",
  O: "ОΟØ",
  o: "оοօøᴏ",
  P: "РΡᏢǷ",
  p: "рρᴘƿ",
  Q: "Ԛ",
  q: "ԛ",
  R: "Ꭱ",
  r: "ʀ",
  S: "ЅᏚ",
  s: "ѕꜱ",
  T: "ТΤŦᎢ",
  t: "τŧᴛ",
  u: "υսᴜ",
  V: "Ꮩ",
  v: "νᴠ",
  W: "ԜᎳ",
  w: "ԝωᴡ",
  X: "ХΧ",
  x: "хχ",
  Y: "УΥҮ",
  y: "уүγʏ",
  Z: "ΖᏃ",
  z: "ᴢ",
};

const LATIN_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(LOOK_ALIKES).flatMap(([latin, others]) => Array.from(others, (c) => [c, latin] as const)),
);

/** Every look-alike letter read as the Latin letter it looks like ("Раssword" → "Password"). */
export function readLatinLookAlikes(value: string): string {
  return Array.from(value, (c) => LATIN_OF.get(c) ?? c).join("");
}
