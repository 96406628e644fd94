import { describe, expect, it } from "vitest";
import { isolatedText } from "./bidi";

const FSI = "\u2068";
const PDI = "\u2069";

describe("isolatedText", () => {
  it("adds no invisible characters to a name in the sentence's own script", () => {
    expect(isolatedText("Demo Salon", "en")).toBe("Demo Salon");
    expect(isolatedText("Café Éloïse", "fr")).toBe("Café Éloïse");
    expect(isolatedText("صالون ليلى", "ar")).toBe("صالون ليلى");
  });

  it("isolates a name written in the other direction, whose punctuation would otherwise jump sides", () => {
    expect(isolatedText("Demo Salon.", "ar")).toBe(`${FSI}Demo Salon.${PDI}`);
    expect(isolatedText("صالون ليلى", "en")).toBe(`${FSI}صالون ليلى${PDI}`);
    expect(isolatedText("Layla صالون", "de")).toBe(`${FSI}Layla صالون${PDI}`);
  });
});
