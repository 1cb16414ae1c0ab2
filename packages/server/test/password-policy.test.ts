import { BRANDS, PASSWORD_LIMITS, PASSWORD_POLICY } from "@gatehouse/contract";
import zxcvbnCommon from "@zxcvbn-ts/language-common";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { passwordRefusal } from "../src/accounts/password-policy.ts";

const BREACHED = (zxcvbnCommon.dictionary["passwords-common"] as string[]).slice(0, PASSWORD_POLICY.breachedListSize);
/** Breached entries made of letters only, so the generated variants below are unambiguous. */
const BREACHED_WORDS = BREACHED.filter((p) => /^[a-z]{4,12}$/u.test(p));
const person = { email: "mira.okafor@example.com", firstName: "Mira", lastName: "Okafor" };

/** Look-alike spellings a person might use, per letter. */
const LOOK_ALIKE: Record<string, string[]> = {
  a: ["4", "@"],
  e: ["3"],
  i: ["1", "!"],
  l: ["1"],
  o: ["0"],
  s: ["5", "$"],
  t: ["7"],
};
const PADDING = fc.string({ unit: fc.constantFrom(..."0123456789!@#$%&*?.-_"), maxLength: 6 });

/** A word with random case and, letter by letter, maybe a look-alike character. */
const disguised = (word: string) =>
  fc
    .tuple(...Array.from(word, (c) => fc.constantFrom(c, c.toUpperCase(), ...(LOOK_ALIKE[c] ?? []))))
    .map((cs) => cs.join(""));

/** The word disguised and padded with digits and symbols before and after, cut to the registration maximum. */
const variantOf = (words: fc.Arbitrary<string>) =>
  fc
    .tuple(words.chain(disguised), PADDING, PADDING)
    .map(([core, before, after]) => `${before}${core}${after}`)
    .filter((p) => Array.from(p).length <= PASSWORD_LIMITS.registerMax);

describe("breached passwords and their trivial variants (ASVS 6.2.4)", () => {
  it.each([
    "Password123!",
    "P@ssw0rd!",
    "PASSWORD",
    "Pa$$w0rd2024",
    "!!monkey2024",
    "Dr@g0n123",
    "iloveyou1!",
    "Letmein#2023",
    "$ecret123",
    "L0ve12345678",
    "drowssap",
    "321drowssap",
    "pass word 1",
    "Ｐａｓｓｗｏｒｄ１２３",
    "pässwörd99",
    "password1password1",
    "Sunshine!!!",
    "H4m1l70n1!",
  ])("refuses %s", (password) => {
    expect(passwordRefusal(password)).toBe("common_password");
  });

  it("refuses any breached word in any case, with look-alikes and digits or symbols around it", () => {
    fc.assert(
      fc.property(variantOf(fc.constantFrom(...BREACHED_WORDS)), (password) => {
        expect(passwordRefusal(password), password).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    "Tr0ub4dor&3x",
    "Copper-Lantern-91!",
    "Granite-Kettle-58",
    "correct horse battery staple",
    "Kx9#mQ2!vL7p",
    "83749283",
    "Mira climbs Kilimanjaro",
    "cloudy-sunday-morning",
  ])("accepts %s", (password) => {
    expect(passwordRefusal(password, person)).toBeUndefined();
  });
});

describe("degenerate passwords", () => {
  it.each([
    ["one repeated character", "aaaaaaaa"],
    ["one repeated digit", "1111111111111"],
    ["only spaces", "        "],
    ["only whitespace of several kinds", "\t \u3000 \u00a0  \t"],
    ["a repeated short pattern", "abcabcabc"],
    ["a repeated pair of digits", "121212121"],
    ["a word twice", "passpass"],
    ["ascending digits", "12345678"],
    ["descending digits", "87654321"],
    ["digits that wrap", "78901234"],
    ["the alphabet", "abcdefgh"],
    ["the alphabet backwards", "HGFEDCBA"],
    ["a keyboard row", "qwertyui"],
    ["a keyboard row backwards", "lkjhgfdsa"],
    ["a German keyboard row", "qwertzui"],
    ["a sequence with digits after", "abcdefgh1!"],
    ["a sequence with a symbol after", "123456789!"],
    ["a repeated character with a digit", "!!!!!!!1"],
    ["a repeated symbol after a year", "2024!!!!"],
    ["a sequence in another script", "αβγδεζηθ"],
  ])("refuses %s", (_name, password) => {
    expect(passwordRefusal(password)).toBe("weak_password");
  });

  it("refuses any character repeated to any length, and any whitespace", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 1 }), fc.integer({ min: 8, max: 64 }), (c, n) => {
        expect(passwordRefusal(c.repeat(n))).toBe("weak_password");
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(" ", "\t", "\u3000", "\u00a0", "\u2003"), minLength: 8 }), (p) => {
        expect(passwordRefusal(p)).toBe("weak_password");
      }),
    );
  });

  it("refuses any unit shorter than the minimum repeated up to the minimum or beyond", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: PASSWORD_POLICY.repeatedUnitMax }),
        fc.integer({ min: 2, max: 16 }),
        (unit, times) => {
          const password = unit.repeat(Math.max(times, Math.ceil(PASSWORD_LIMITS.registerMin / unit.length)));
          expect(passwordRefusal(password)).toBe("weak_password");
        },
      ),
    );
  });

  it("refuses any run of the alphabet or the digits, either way", () => {
    const runs = ["abcdefghijklmnopqrstuvwxyz", "0123456789"];
    fc.assert(
      fc.property(
        fc.constantFrom(...runs),
        fc.nat(),
        fc.integer({ min: 8, max: 26 }),
        fc.boolean(),
        (r, s, n, back) => {
          const start = s % Math.max(1, r.length - n + 1);
          const run = r.slice(start, start + n);
          if (run.length < 8) return;
          expect(passwordRefusal(back ? [...run].reverse().join("") : run)).toBe("weak_password");
        },
      ),
    );
  });
});

describe("context words (ASVS 6.2.11)", () => {
  it.each([
    ["the product's name", "Gatehouse2024!"],
    ["the product's name in look-alikes", "G4t3h0use!"],
    ["a brand's name", "Enscape1!"],
    ["a brand's name, reversed", "epacsne2024"],
    ["a brand's name in two words", "CloudRender99"],
    ["a brand's id", "archviz!!"],
    ["the first name", "Mira12345!"],
    ["the last name", "okafor2024"],
    ["both names", "Mira Okafor"],
    ["the e-mail address", "mira.okafor@example.com"],
    ["the e-mail's local part", "MiraOkafor#1"],
    ["the e-mail's domain", "Example2024"],
    ["a context word and a common one", "EnscapePassword"],
    ["a context word and a degenerate rest", "Okafor!abcdef"],
  ])("refuses %s", (_name, password) => {
    expect(passwordRefusal(password, person)).toBe("context_password");
  });

  it("refuses every brand's name and id with digits and symbols around it", () => {
    const words = Object.values(BRANDS).flatMap((b) => [b.name.replace(/\s/gu, ""), b.id]);
    fc.assert(
      fc.property(variantOf(fc.constantFrom(...words)), (password) => {
        expect(passwordRefusal(password), password).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it("refuses any name of four letters or more, disguised and padded", () => {
    const name = fc.stringMatching(/^[a-z]{4,12}$/u);
    fc.assert(
      fc.property(name, PADDING, PADDING, (first, before, after) => {
        const password = `${before}${first[0]?.toUpperCase()}${first.slice(1)}${after}`;
        if (Array.from(password).length < PASSWORD_LIMITS.registerMin) return;
        expect(passwordRefusal(password, { firstName: first }), password).toBeDefined();
      }),
    );
  });

  it("does not refuse a passphrase for holding a context word, nor a name shorter than four letters", () => {
    expect(passwordRefusal("I render with Enscape every day", person)).toBeUndefined();
    expect(passwordRefusal("Mira climbs Kilimanjaro", person)).toBeUndefined();
    expect(passwordRefusal("Ann-Kettle-58!", { firstName: "Ann", lastName: "Li" })).toBeUndefined();
  });

  it("uses only what it is told about the person", () => {
    expect(passwordRefusal("Okafor-1987!")).toBeUndefined();
    expect(passwordRefusal("Okafor-1987!", person)).toBe("context_password");
  });
});
