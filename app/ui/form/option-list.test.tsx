import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { zoneOptions } from "~/lib/when";
import { optionListHtml } from "./option-list";

/** What React writes for the list as elements, the way pages wrote it before. */
const asElements = (options: { value: string; label: string }[], selected: string | undefined) =>
  renderToStaticMarkup(
    <select name="tz" defaultValue={selected}>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>,
  );

const asHtml = (options: { value: string; label: string }[], selected: string | undefined) =>
  renderToStaticMarkup(<select name="tz" dangerouslySetInnerHTML={{ __html: optionListHtml(options, selected) }} />);

describe("a long option list written once as HTML", () => {
  it("is the markup React writes for the same options, the chosen one marked, in every language", () => {
    for (const locale of ["en", "ar", "de", "es", "fr", "it"]) {
      const options = zoneOptions(locale, ["America/Detroit", "Europe/Berlin"]);
      for (const selected of ["America/Detroit", "Europe/Berlin", "UTC", "Nowhere/At_All", undefined]) {
        // Twice: the second answer comes from the list made by the first.
        expect(asHtml(options, selected)).toBe(asElements(options, selected));
        expect(asHtml(options, selected)).toBe(asElements(options, selected));
      }
    }
  });

  it("escapes values and labels as React does, and marks every option of the chosen value as React does", () => {
    const options = [
      { value: `a"b'<c>&`, label: `Fish & "chips" <b>'s</b>` },
      { value: "x", label: "one" },
      { value: "x", label: "two" },
    ];
    for (const selected of [`a"b'<c>&`, "x"]) expect(asHtml(options, selected)).toBe(asElements(options, selected));
  });
});
