import { preload } from "react-dom";
import latinFont from "@fontsource-variable/noto-sans/files/noto-sans-latin-wght-normal.woff2?url";

/**
 * Asks the browser for the Latin font file as the page's head arrives, instead of after the
 * stylesheet is parsed: every page shows Latin text (Arabic pages too: digits, names). Vite gives
 * this import and app.css's url() the same hashed file. The Arabic file is left to the
 * stylesheet: it is large and only Arabic pages need it.
 */
export function usePreloadedFont() {
  preload(latinFont, { as: "font", type: "font/woff2", crossOrigin: "anonymous" });
}
