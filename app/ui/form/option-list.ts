import { rememberedValues } from "~/lib/sharing/remembered";
/**
 * A long list of `<option>`s as HTML, made once and reused: the booking page's time-zone choice
 * has about 150 entries, the same for every visitor of a language (ui/form/field's SelectField
 * takes it as `optionsHtml`). Rendering them as React elements on every request was a tenth of
 * the time step's CPU. Only for pages that load no React (a page that hydrates must render its
 * options as elements, which React compares). The HTML is what React writes for
 * `<select defaultValue={selected}>{options.map(o => <option value={o.value}>{o.label}</option>)}`.
 */
export interface Option {
  value: string;
  label: string;
}

/** Lists made, by their content; a few languages and zones chosen, so a small bound is plenty. */
const made = rememberedValues<string>(200);

export function optionListHtml(options: readonly Option[], selected: string | undefined) {
  const key = options.map((option) => `${option.value}\u0000${option.label}`).join("\u0001");
  const html = made(key, () =>
    options.map((option) => `<option value="${escapeHtml(option.value)}">${escapeHtml(option.label)}</option>`).join(""),
  );
  if (selected === undefined) return html;
  // Every option of that value, as React marks them.
  const value = escapeHtml(selected);
  return html.replaceAll(`<option value="${value}">`, `<option value="${value}" selected="">`);
}

/** React's escaping of text and attribute values. */
function escapeHtml(text: string) {
  return text.replace(/["&'<>]/g, (c) => ({ '"': "&quot;", "&": "&amp;", "'": "&#x27;", "<": "&lt;", ">": "&gt;" })[c]!);
}
