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

/**
 * "Café Nour & Co." → "cafe-nour-co", "صالون الورد" → "salun-alurd": readable booking links
 * from business names. A name with no letter we can write in Latin gives "business".
 */
export function slugify(name: string) {
  const slug = transliterateArabic(name)
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48)
    .replace(/-+$/, "");
  return slug || "business";
}
