/**
 * The classes of characters the password policy reads a password by (ASVS 6.2.4): letters, digits and the rest;
 * the separators people put between words; the characters that draw nothing.
 */

export const LETTER = /\p{L}/u;
export const DIGIT = /\p{N}/u;
export const SYMBOL = /[^\p{L}\p{N}]/u;

/** Spaces and the punctuation people put between words ("pass word", "i-love-you", "john.smith"). */
export const SEPARATOR = /[\s\-_.]/u;
export const SEPARATORS = /[\s\-_.]+/gu;

/**
 * Characters that draw nothing (zero-width spaces and joiners, soft hyphens, word joiners, direction marks,
 * variation selectors, tag characters, Hangul fillers, the blank Braille pattern): "pass\u200Bword" looks like
 * "password" and must be compared as it. They are not refused outright, since Persian and Indic scripts need the
 * zero-width (non-)joiner and emoji sequences the joiner and variation selectors.
 */
export const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]+/gu;
/** Accents and every other combining mark, taken off after NFKD, and the invisible characters. */
export const MARKS_AND_INVISIBLE = /[\p{M}\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]+/gu;

/**
 * Letters that count as padding around digits or symbols, a keyboard walk, a sequence or a repetition
 * ("x11111111", "Zxcvbnm,./12Q"): more letters than this make a word.
 */
export const PADDING_LETTERS_MAX = 2;
