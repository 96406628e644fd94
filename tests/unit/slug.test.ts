import { describe, expect, it } from "vitest";
import { slugify } from "#models/slug";

describe("booking links from business names", () => {
  it.each([
    ["Café Nour & Co.", "cafe-nour-co"],
    ["صالون الورد", "salun-alurd"],
    ["Салон Роза", "salon-roza"],
    ["Київ Краса", "kiiv-krasa"],
    ["Фризьор Щастие", "frizor-shchastie"],
    ["Κομμωτήριο Ελένη", "kommotirio-eleni"],
    ["Μπαρ Ουρανός", "bar-ouranos"],
    ["מספרת שרה", "msprt-shrh"],
    ["सुंदर सैलून", "sundar-sailun"],
    ["कमल ब्यूटी", "kamal-byuti"],
    ["Salon Роза 24", "salon-roza-24"],
  ])("writes %s in Latin as %s", (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it("gives a name in a script with no Latin reading the business's kind and a code of the name, never one word for everyone", () => {
    const names = ["花店", "美容室さくら", "미용실", "ร้านเสริมสวย", "理发店", "茶馆"];
    const slugs = names.map((name) => slugify(name, "beauty"));
    for (const slug of slugs) expect(slug).toMatch(/^beauty-[0-9a-z]{6}$/);
    expect(new Set(slugs).size).toBe(names.length);
    // Stable: the same name gives the same link, whatever its spacing or Unicode form.
    expect(slugify(" 花店 ", "beauty")).toBe(slugify("花店", "beauty"));
    expect(slugify("花店")).toMatch(/^business-[0-9a-z]{6}$/);
    expect(slugify("花店", "other")).toMatch(/^business-[0-9a-z]{6}$/);
  });

  it("keeps the Latin part of a mixed name, and stays short enough for a link", () => {
    expect(slugify("北京 Salon")).toBe("salon");
    expect(slugify("Салон ".repeat(20)).length).toBeLessThanOrEqual(48);
    expect(slugify("Салон ".repeat(20))).not.toMatch(/-$/);
  });
});
