/**
 * Letters of other scripts that look like Latin letters (ASVS 6.2.4): "Раssword" with a Cyrillic "Р" and "а" is
 * "Password" to the eye and to a cracker's homoglyph rules. A small table of the common confusables (the letters
 * of Unicode's confusables.txt that look like a Latin letter in Cyrillic, Greek and Armenian, the small capitals
 * of "fancy text" generators, and the Latin letters with a stroke that NFKD does not take apart), read before
 * lower-casing because case changes the look ("Ν" is an "N", "ν" a "v"). A UTS #39 skeleton library would
 * also map Latin to Latin ("1" → "l", "0" → "O"), which our case folding and look-alike readings already do
 * their own way, so it is not used.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  A: "АΑ",
  a: "аαᴀ",
  B: "ВΒ",
  b: "ьƀʙ",
  C: "С",
  c: "сᴄ",
  D: "ԀĐ",
  d: "ԁđᴅ",
  E: "ЕΕ",
  e: "еεᴇ",
  g: "ɢ",
  H: "НΗҺĦ",
  h: "һհħʜ",
  I: "ІΙӀ",
  i: "іιıɪ",
  J: "Ј",
  j: "јᴊ",
  K: "КΚ",
  k: "κᴋ",
  L: "Ł",
  l: "ӏłʟ",
  M: "МΜ",
  m: "ᴍ",
  N: "Ν",
  n: "ηոɴ",
  O: "ОΟØ",
  o: "оοօøᴏ",
  P: "РΡ",
  p: "рρᴘ",
  Q: "Ԛ",
  q: "ԛ",
  r: "ʀ",
  S: "Ѕ",
  s: "ѕꜱ",
  T: "ТΤŦ",
  t: "τŧᴛ",
  u: "υսᴜ",
  v: "νᴠ",
  W: "Ԝ",
  w: "ԝωᴡ",
  X: "ХΧ",
  x: "хχ",
  Y: "УΥҮ",
  y: "уүγʏ",
  Z: "Ζ",
  z: "ᴢ",
};

const LATIN_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(LOOK_ALIKES).flatMap(([latin, others]) => Array.from(others, (c) => [c, latin] as const)),
);

/** Every look-alike letter read as the Latin letter it looks like ("Раssword" → "Password"). */
export function readLatinLookAlikes(value: string): string {
  return Array.from(value, (c) => LATIN_OF.get(c) ?? c).join("");
}
