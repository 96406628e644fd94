/**
 * Arabic (and Persian) letters in Latin, for booking links: a readable approximation, not a
 * scholarly transliteration. Short vowels are not written in Arabic, so "الورد" gives "alwrd".
 */
const ARABIC: Record<string, string> = {
  ا: "a",
  أ: "a",
  إ: "i",
  آ: "a",
  ٱ: "a",
  ء: "",
  ؤ: "u",
  ئ: "i",
  ب: "b",
  ت: "t",
  ث: "th",
  ج: "j",
  ح: "h",
  خ: "kh",
  د: "d",
  ذ: "dh",
  ر: "r",
  ز: "z",
  س: "s",
  ش: "sh",
  ص: "s",
  ض: "d",
  ط: "t",
  ظ: "z",
  ع: "a",
  غ: "gh",
  ف: "f",
  ق: "q",
  ك: "k",
  ل: "l",
  م: "m",
  ن: "n",
  ه: "h",
  ة: "a",
  ى: "a",
  پ: "p",
  چ: "ch",
  ژ: "zh",
  گ: "g",
  ک: "k",
  ی: "y",
  ـ: "",
};
const ARABIC_VOWELS = new Set(["ا", "أ", "إ", "آ", "ٱ", "ى", "ة"]);

/** و and ي are consonants (w, y) at a word's start or beside an alif, else vowels (u, i). */
function transliterateArabic(text: string) {
  const letters = [...text.replace(/[\u064B-\u065F\u0670]/g, "")];
  return letters
    .map((letter, i) => {
      const code = letter.charCodeAt(0);
      if (code >= 0x0660 && code <= 0x0669) return String(code - 0x0660);
      if (code >= 0x06f0 && code <= 0x06f9) return String(code - 0x06f0);
      if (letter === "و" || letter === "ي" || letter === "ی") {
        const before = letters[i - 1];
        const after = letters[i + 1];
        const consonant = !before || /\s/.test(before) || ARABIC_VOWELS.has(before) || (after !== undefined && ARABIC_VOWELS.has(after));
        return letter === "و" ? (consonant ? "w" : "u") : consonant ? "y" : "i";
      }
      return ARABIC[letter] ?? letter;
    })
    .join("");
}

/** Cyrillic (Russian, Ukrainian, Belarusian, Bulgarian, Serbian, Macedonian letters), after the common passport-style romanisations. */
const CYRILLIC: Record<string, string> = {
  а: "a",
  б: "b",
  в: "v",
  г: "g",
  д: "d",
  е: "e",
  ё: "e",
  ж: "zh",
  з: "z",
  и: "i",
  й: "i",
  к: "k",
  л: "l",
  м: "m",
  н: "n",
  о: "o",
  п: "p",
  р: "r",
  с: "s",
  т: "t",
  у: "u",
  ф: "f",
  х: "kh",
  ц: "ts",
  ч: "ch",
  ш: "sh",
  щ: "shch",
  ъ: "",
  ы: "y",
  ь: "",
  э: "e",
  ю: "iu",
  я: "ia",
  є: "ie",
  і: "i",
  ї: "i",
  ґ: "g",
  ў: "u",
  ђ: "dj",
  ј: "j",
  љ: "lj",
  њ: "nj",
  ћ: "c",
  џ: "dz",
  ѓ: "gj",
  ќ: "kj",
  ѕ: "dz",
};

/** Greek (monotonic and polytonic, accents dropped first), after ELOT 743 simplified. */
const GREEK: Record<string, string> = {
  α: "a",
  β: "v",
  γ: "g",
  δ: "d",
  ε: "e",
  ζ: "z",
  η: "i",
  θ: "th",
  ι: "i",
  κ: "k",
  λ: "l",
  μ: "m",
  ν: "n",
  ξ: "x",
  ο: "o",
  π: "p",
  ρ: "r",
  σ: "s",
  ς: "s",
  τ: "t",
  υ: "y",
  φ: "f",
  χ: "ch",
  ψ: "ps",
  ω: "o",
};
const GREEK_PAIRS: Record<string, string> = { ου: "ou", αι: "ai", ει: "ei", οι: "oi", μπ: "b", ντ: "nt", γγ: "ng", γκ: "gk" };

/** Hebrew letters (final forms too); vowel points are dropped, as in everyday writing. */
const HEBREW: Record<string, string> = {
  א: "a",
  ב: "b",
  ג: "g",
  ד: "d",
  ה: "h",
  ו: "v",
  ז: "z",
  ח: "ch",
  ט: "t",
  י: "y",
  כ: "k",
  ך: "k",
  ל: "l",
  מ: "m",
  ם: "m",
  נ: "n",
  ן: "n",
  ס: "s",
  ע: "a",
  פ: "p",
  ף: "f",
  צ: "ts",
  ץ: "ts",
  ק: "k",
  ר: "r",
  ש: "sh",
  ת: "t",
};

/** Devanagari (Hindi, Marathi, Nepali): consonants carry an "a" unless a vowel sign or the virama follows. */
const DEVANAGARI_CONSONANTS: Record<string, string> = {
  क: "k",
  ख: "kh",
  ग: "g",
  घ: "gh",
  ङ: "n",
  च: "ch",
  छ: "chh",
  ज: "j",
  झ: "jh",
  ञ: "n",
  ट: "t",
  ठ: "th",
  ड: "d",
  ढ: "dh",
  ण: "n",
  त: "t",
  थ: "th",
  द: "d",
  ध: "dh",
  न: "n",
  प: "p",
  फ: "ph",
  ब: "b",
  भ: "bh",
  म: "m",
  य: "y",
  र: "r",
  ल: "l",
  ळ: "l",
  व: "v",
  श: "sh",
  ष: "sh",
  स: "s",
  ह: "h",
  क़: "q",
  ख़: "kh",
  ग़: "gh",
  ज़: "z",
  ड़: "r",
  ढ़: "rh",
  फ़: "f",
};
const DEVANAGARI_VOWELS: Record<string, string> = {
  अ: "a",
  आ: "aa",
  इ: "i",
  ई: "i",
  उ: "u",
  ऊ: "u",
  ऋ: "ri",
  ए: "e",
  ऐ: "ai",
  ओ: "o",
  औ: "au",
  "\u093e": "a",
  "\u093f": "i",
  "\u0940": "i",
  "\u0941": "u",
  "\u0942": "u",
  "\u0943": "ri",
  "\u0947": "e",
  "\u0948": "ai",
  "\u094b": "o",
  "\u094c": "au",
  "\u0902": "n",
  "\u0901": "n",
  "\u0903": "h",
};
const VIRAMA = "\u094d";

function transliterateDevanagari(text: string) {
  const letters = [...text.normalize("NFC")];
  let out = "";
  letters.forEach((letter, i) => {
    const consonant = DEVANAGARI_CONSONANTS[letter];
    if (consonant !== undefined) {
      const next = letters[i + 1];
      const nextIsSign = next !== undefined && (next === VIRAMA || (next in DEVANAGARI_VOWELS && next >= "\u093e"));
      // A word's last consonant loses its "a" in Hindi speech ("कमल" is kamal).
      const wordEnd = next === undefined || !/[\u0900-\u097f]/.test(next);
      out += consonant + (nextIsSign || wordEnd ? "" : "a");
    } else if (letter === VIRAMA || letter === "\u093c") {
      // The virama only silences the consonant before it; the nukta is in the letters above.
    } else if (letter in DEVANAGARI_VOWELS) out += DEVANAGARI_VOWELS[letter];
    else if (letter >= "\u0966" && letter <= "\u096f") out += String(letter.charCodeAt(0) - 0x0966);
    else out += letter;
  });
  return out;
}

function transliterateTable(text: string, table: Record<string, string>) {
  return [...text].map((letter) => table[letter] ?? letter).join("");
}

/** Every script this module writes in Latin, applied in turn (a name may mix them). */
function transliterate(name: string) {
  let text = transliterateArabic(name.normalize("NFC"));
  text = transliterateTable(text.toLowerCase(), CYRILLIC);
  // Greek accents (tonos, dialytika, polytonic marks) off first, then the pairs, then the letters.
  text = text.replace(/[\u0370-\u03ff\u1f00-\u1fff]+/g, (greek) => {
    let plain = greek.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
    for (const [pair, latin] of Object.entries(GREEK_PAIRS)) plain = plain.replaceAll(pair, latin);
    return transliterateTable(plain, GREEK);
  });
  text = transliterateTable(text.replace(/[\u0591-\u05c7]/g, ""), HEBREW);
  return transliterateDevanagari(text);
}

/** A short, stable code for a name: FNV-1a, in base 36 (six characters). */
function nameCode(name: string) {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(name.normalize("NFC").trim())) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).padStart(6, "0").slice(-6);
}

function latinSlug(text: string) {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48)
    .replace(/-+$/, "");
}

/**
 * "Café Nour & Co." → "cafe-nour-co", "صالون الورد" → "salun-alurd", "Салон Роза" → "salon-roza",
 * "Κομμωτήριο" → "kommotirio": readable booking links from business names, Arabic, Cyrillic, Greek,
 * Hebrew and Devanagari written in Latin. A name in a script with no such reading (Chinese,
 * Japanese, Korean, Thai…) gets `kind` (the business's industry, when it says something) and a
 * short code of the name, the same for the same name and different for different ones:
 * "花店" → "beauty-1x8k2c".
 */
export function slugify(name: string, kind?: string) {
  const slug = latinSlug(transliterate(name));
  if (slug) return slug;
  const prefix = kind && kind !== "other" ? latinSlug(kind) : "";
  return `${prefix || "business"}-${nameCode(name)}`;
}
