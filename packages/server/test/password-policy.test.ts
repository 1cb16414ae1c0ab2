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

/**
 * A disguised word that keeps a letter: one written only in digits and symbols ("@@@$$5" for "aaasss") cannot be
 * told apart from digits and symbols around it ("@" + "@@@$$5" + "0").
 */
const disguisedWord = (words: fc.Arbitrary<string>) => words.chain(disguised).filter((w) => /\p{L}/u.test(w));

/** The word disguised and padded with digits and symbols before and after, cut to the registration maximum. */
const variantOf = (words: fc.Arbitrary<string>) =>
  fc
    .tuple(disguisedWord(words), PADDING, PADDING)
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
    "K!11B!11#2",
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

/** Every code point that draws nothing: the default-ignorable and the format characters. */
const INVISIBLE_CHARS: readonly string[] = (() => {
  const found: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    if (/[\p{Default_Ignorable_Code_Point}\p{Cf}]/u.test(c)) found.push(c);
  }
  return found;
})();

/** Slips each character in at its position (modulo the length), as a paste from a web page might. */
const slipIn = (password: string, insertions: readonly (readonly [number, string])[]) => {
  const chars = Array.from(password);
  for (const [at, c] of insertions) chars.splice(at % (chars.length + 1), 0, c);
  return chars.join("");
};
const INSERTIONS = fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLE_CHARS)), { minLength: 1, maxLength: 4 });

describe("invisible characters do not hide a breached word (ASVS 6.2.4)", () => {
  it.each([
    ["a zero-width space", "pass\u200bword1"],
    ["a soft hyphen", "p\u00adassword1"],
    ["a zero-width space and padding", "Pass\u200Bword123!"],
    ["a soft hyphen and padding", "P\u00ADassword1234!"],
    ["a zero-width joiner", "Drag\u200Don2024!!"],
    ["a zero-width non-joiner", "Foot\u200Cball99"],
    ["a word joiner", "S\u2060unshine!!"],
    ["a tag character", "Pass\u{E0041}word1"],
    ["a right-to-left override", "pass\u202Eword123"],
    ["a byte order mark", "mon\uFEFFkey2024"],
  ])("refuses %s inside a breached word", (_name, password) => {
    expect(passwordRefusal(password)).toBe("common_password");
  });

  it.each([
    ["three characters padded with invisible ones", "Xq7\u200B\u2060\u00AD\u200C\u200D\uFEFF"],
    ["only invisible characters", "\u200B\u2060\u00AD\u200C\u200D\uFEFF\u180E\u2061"],
    ["only Hangul fillers and joiners", "\u3164\u200D\u115F\u200C\u1160\u2060\u3164\u034F"],
  ])("refuses %s", (_name, password) => {
    expect(passwordRefusal(password)).toBe("weak_password");
  });

  it("refuses any breached word with any invisible characters slipped in anywhere", () => {
    fc.assert(
      fc.property(variantOf(fc.constantFrom(...BREACHED_WORDS)), INSERTIONS, (password, insertions) => {
        const slipped = slipIn(password, insertions);
        expect(passwordRefusal(slipped), JSON.stringify(slipped)).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it("never changes its verdict on any password for invisible characters slipped in", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }), INSERTIONS, (password, insertions) => {
        expect(passwordRefusal(slipIn(password, insertions))).toBe(passwordRefusal(password));
      }),
    );
  });

  it("keeps the joiners that scripts and emoji need", () => {
    expect(passwordRefusal("👨‍👩‍👧 family trip to Lisbon!")).toBeUndefined();
    expect(passwordRefusal("می‌خواهم پرواز کنم ۲۰۲۴")).toBeUndefined();
  });
});

describe("a breached word repeated anywhere in the password", () => {
  it.each([
    "Trustno1Trustno1!",
    "Dragon2024Dragon!",
    "Abc123Abc123!",
    "Monkey!Monkey99",
    "Shadow1Sh@dow1",
    "2024Football!2024Football",
    "!!SunshineSunshine2",
    "P@ssw0rdP@ssw0rd!",
    "borabora0borabora",
  ])("refuses %s", (password) => {
    expect(passwordRefusal(password)).toBeDefined();
  });

  it("refuses any breached word written twice, each time disguised, with digits and symbols around and between", () => {
    const twice = fc
      .constantFrom(...BREACHED_WORDS)
      .chain((word) => fc.tuple(disguisedWord(fc.constant(word)), disguisedWord(fc.constant(word))));
    fc.assert(
      fc.property(twice, PADDING, PADDING, PADDING, ([first, second], before, between, after) => {
        const password = `${before}${first}${between}${second}${after}`;
        expect(passwordRefusal(password), password).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });
});

/** Columns and diagonals of a US keyboard, top-down ("1qaz") and bottom-up ("zse4"). */
const KEYBOARD_LINES = [
  ..."1qaz 2wsx 3edc 4rfv 5tgb 6yhn 7ujm 8ik, 9ol. 0p;/".split(" "),
  ..."zse4 xdr5 cft6 vgy7 bhu8 nji9 mko0".split(" "),
];
/** What each key of a US keyboard types with Shift. */
const US_SHIFT: Record<string, string> = Object.fromEntries(
  Array.from("1234567890-=[];',./", (c, i) => [c, '!@#$%^&*()_+{}:"<>?'[i] ?? c]),
);
/** A column or a diagonal, either way, each key typed with or without Shift. */
const keyboardLine = fc
  .tuple(fc.constantFrom(...KEYBOARD_LINES), fc.boolean(), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }))
  .map(([line, backwards, shifts]) =>
    Array.from(backwards ? [...line].reverse().join("") : line, (c, i) =>
      shifts[i] ? (US_SHIFT[c] ?? c.toUpperCase()) : c,
    ).join(""),
  );

describe("keyboard walks, with and without Shift", () => {
  it.each([
    ["columns with Shift", "1qaz@WSX3edc"],
    ["columns with Shift, again", "!QAZ2wsx#EDC"],
    ["a column upwards, then down", "Zaq1@wsx3edc"],
    ["a zigzag with Shift", "!Q2w#E4r%T6y"],
    ["one column three times", "1qaz!QAZ1qaz"],
    ["the shifted digit row with a composition suffix", "!@#$%^&*()Aa1"],
    ["the shifted digit row", "!@#$%^&*"],
    ["diagonals", "zse4xdr5cft6"],
    ["columns upwards", "xsw2zaq1"],
    ["a column and a diagonal", "4rfv5tgb"],
    ["a column, then again with Shift", "7ujm&UJM"],
    ["a German column", "1yaq2wsx3edc"],
    ["the German shifted digit row", '!"§$%&/('],
    ["the French digit row", "&é\"'(-è_"],
    ["French columns", "&aqwézsx"],
  ])("refuses %s", (_name, password) => {
    expect(passwordRefusal(password)).toBe("weak_password");
  });

  it("refuses any string of columns and diagonals, shifted or not, with a little padding", () => {
    const padding = fc.constantFrom("", "!", "1", "Aa1", "a1!", "!!", "2024");
    fc.assert(
      fc.property(fc.array(keyboardLine, { minLength: 2, maxLength: 4 }), padding, padding, (lines, before, after) => {
        const password = `${before}${lines.join("")}${after}`;
        if (Array.from(before + after).length > 3) fc.pre(before === "" || after === "");
        expect(passwordRefusal(password), password).toBeDefined();
      }),
    );
  });

  it("refuses any breached word with a keyboard walk before or after it", () => {
    fc.assert(
      fc.property(
        disguisedWord(fc.constantFrom(...BREACHED_WORDS)),
        keyboardLine,
        fc.boolean(),
        PADDING,
        (word, walk, walkFirst, padding) => {
          const password = walkFirst ? `${walk}${word}${padding}` : `${word}${walk}${padding}`;
          expect(passwordRefusal(password), password).toBeDefined();
        },
      ),
      { numRuns: 500 },
    );
  });

  it("does not take words that hold a short walk for one", () => {
    for (const password of [
      "Always-Reset-Polka-61",
      "Brewery-Swerve-Deserve-88",
      "Plop_Wrench74?",
      "Drew Polo Sway 1987",
    ]) {
      expect(passwordRefusal(password), password).toBeUndefined();
    }
  });
});

describe("a sequence or a repetition padded with a letter or two", () => {
  it.each([
    "x11111111",
    "Z12345678!",
    "1234567890x",
    "00000000a",
    "k87654321",
    "Zxcvbnm,./12Q",
    "Asdfghjkl;1A",
    "Ab98765432",
    "!!!!!!!!Xy",
    "a2345678b",
    "Abc12345678!",
    "xyz!!!!!!!!",
    "aaaaaaab",
    "########!",
    "11111112",
    "xabcdefgh",
    "Qababababab",
  ])("refuses %s", (password) => {
    expect(passwordRefusal(password)).toBe("weak_password");
  });

  it("refuses any run of digits or one repeated symbol with up to two letters and symbols around it", () => {
    const digits = "01234567890123456789";
    const run = fc.oneof(
      fc.tuple(fc.nat(9), fc.integer({ min: 8, max: 10 }), fc.boolean()).map(([start, n, back]) => {
        const forwards = digits.slice(start, start + n);
        return back ? [...forwards].reverse().join("") : forwards;
      }),
      fc.tuple(fc.constantFrom(..."0123456789!@#$%&*?"), fc.integer({ min: 8, max: 12 })).map(([c, n]) => c.repeat(n)),
    );
    const letters = fc.string({
      unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
      maxLength: 2,
    });
    const symbols = fc.string({ unit: fc.constantFrom(..."!?#*.-"), maxLength: 2 });
    fc.assert(
      fc.property(run, letters, fc.nat(2), symbols, (digitsRun, pad, split, symbol) => {
        const password = `${pad.slice(0, split)}${digitsRun}${symbol}${pad.slice(split)}`;
        expect(passwordRefusal(password), password).toBe("weak_password");
      }),
    );
  });
});

/** Cyrillic and Greek letters that look like Latin ones, per Latin letter (test's own table). */
const CONFUSABLE: Record<string, string[]> = {
  a: ["а", "α"],
  c: ["с"],
  e: ["е", "ε"],
  i: ["і", "ι"],
  j: ["ј"],
  k: ["κ"],
  o: ["о", "ο"],
  p: ["р", "ρ"],
  s: ["ѕ"],
  t: ["τ"],
  u: ["υ"],
  v: ["ν"],
  w: ["ԝ"],
  x: ["х"],
  y: ["у"],
  A: ["А", "Α"],
  B: ["В", "Β"],
  E: ["Е", "Ε"],
  H: ["Н", "Η"],
  K: ["К", "Κ"],
  M: ["М", "Μ"],
  O: ["О", "Ο"],
  P: ["Р", "Ρ"],
  T: ["Т", "Τ"],
  X: ["Х", "Χ"],
  Y: ["У", "Υ"],
};

describe("letters of other scripts that look Latin", () => {
  it.each([
    ["Cyrillic Р and а", "Раssword123!"],
    ["a Greek capital rho", "Ρassword1"],
    ["Cyrillic а and о", "Drаgоn2024"],
    ["Cyrillic dze", "ѕunѕhine!!"],
    ["Greek capitals", "ΜΟΝΚΕΥ123"],
    ["small capitals", "ᴘᴀssᴡᴏʀᴅ1"],
    ["Latin letters with a stroke", "Føøtball1"],
    ["a Cherokee capital", "Ꮲassword1"],
  ])("refuses a breached word in %s", (_name, password) => {
    expect(passwordRefusal(password)).toBe("common_password");
  });

  it("refuses the product's name in Cyrillic look-alikes", () => {
    expect(passwordRefusal("Gаtеhouse2024!")).toBe("context_password");
  });

  it("refuses any breached word with letters swapped for Cyrillic or Greek look-alikes", () => {
    const lookAlike = (word: string) =>
      fc
        .tuple(
          ...Array.from(word, (c) =>
            fc.constantFrom(c, ...(CONFUSABLE[c] ?? []), ...(CONFUSABLE[c.toUpperCase()] ?? [])),
          ),
        )
        .map((cs) => cs.join(""));
    fc.assert(
      fc.property(fc.constantFrom(...BREACHED_WORDS).chain(lookAlike), PADDING, PADDING, (core, before, after) => {
        const password = `${before}${core}${after}`;
        expect(passwordRefusal(password), password).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });
});

describe("strong passwords and passphrases stay accepted", () => {
  it.each([
    "correct horse battery staple",
    "Tr0ub4dor&3xyz!Q",
    "purple-elephant-on-a-bicycle",
    "Glühwein im Dezember 2019!",
    "東京タワーは夜がきれい2024",
    "Кошка спит на диване 42",
    "Ωραίο καλοκαίρι στη Νάξο",
    "사랑해요 서울 2024!",
    "नमस्ते दुनिया 2024",
    "Straße nach Köln 1989!",
    "❤️ rainy Sundays in Porto ☔️",
    "9fK!rT2#pLq7",
    "Zq8!wN3@vB6#",
    "mY-cAt-hAs-9-LiVeS",
    "8x!Walrus!Tango!2",
  ])("accepts %s", (password) => {
    expect(passwordRefusal(password, person)).toBeUndefined();
  });

  it("decides the longest passwords in well under the time of a keystroke", () => {
    const longest = (unit: string) =>
      Array.from(unit.repeat(PASSWORD_LIMITS.registerMax)).slice(0, PASSWORD_LIMITS.registerMax).join("");
    const inputs = [
      `${"1!|9".repeat(7)}ab${"|!19".repeat(8)}12`,
      longest("Kx9#mQ2!vL7p"),
      longest("сорт Ραѕѕ "),
      longest("a1b2c3d4e5f6"),
      longest("P\u200Ba\u200Bs\u200Bs\u200B"),
    ];
    const runs = 20;
    const started = performance.now();
    for (let i = 0; i < runs; i++) for (const password of inputs) passwordRefusal(password, person);
    // Measured at about 2 ms for the slowest of these on a busy two-core machine; the bound only catches a blow-up.
    expect((performance.now() - started) / (runs * inputs.length)).toBeLessThan(20);
  });
});
