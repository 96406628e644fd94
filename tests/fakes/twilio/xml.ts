// A small XML parser, enough for TwiML.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: (XmlElement | string)[];
}

function decodeEntities(text: string) {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    if (entity.startsWith("#x")) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith("#")) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" } as Record<string, string>)[entity]!;
  });
}

export function parseXml(source: string): XmlElement {
  let i = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const fail = (why: string): never => {
    throw new Error(`${why} at offset ${i}`);
  };
  while (i < source.length) {
    if (source.startsWith("<?", i)) {
      const end = source.indexOf("?>", i);
      if (end < 0) fail("Unterminated processing instruction");
      i = end + 2;
    } else if (source.startsWith("<!--", i)) {
      const end = source.indexOf("-->", i);
      if (end < 0) fail("Unterminated comment");
      i = end + 3;
    } else if (source.startsWith("<![CDATA[", i)) {
      const end = source.indexOf("]]>", i);
      if (end < 0 || stack.length === 0) fail("Bad CDATA");
      stack.at(-1)!.children.push(source.slice(i + 9, end));
      i = end + 3;
    } else if (source.startsWith("<!", i)) {
      const end = source.indexOf(">", i);
      if (end < 0) fail("Unterminated declaration");
      i = end + 1;
    } else if (source.startsWith("</", i)) {
      const end = source.indexOf(">", i);
      if (end < 0) fail("Unterminated end tag");
      const name = source.slice(i + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) fail(`Unexpected </${name}>`);
      i = end + 1;
    } else if (source[i] === "<") {
      const match = /^<([A-Za-z_][\w.:-]*)/.exec(source.slice(i, i + 200));
      if (!match) fail("Bad tag");
      const element: XmlElement = { name: match![1]!, attrs: {}, children: [] };
      i += match![0].length;
      let selfClosing = false;
      for (;;) {
        while (/\s/.test(source[i] ?? "")) i++;
        if (source.startsWith("/>", i)) {
          i += 2;
          selfClosing = true;
          break;
        }
        if (source[i] === ">") {
          i++;
          break;
        }
        const attr = /^([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(source.slice(i, i + 10_000));
        if (!attr) fail(`Bad attribute in <${element.name}>`);
        element.attrs[attr![1]!] = decodeEntities(attr![3] ?? attr![4] ?? "");
        i += attr![0].length;
      }
      const parent = stack.at(-1);
      if (parent) parent.children.push(element);
      else if (root) fail("More than one root element");
      else root = element;
      if (!selfClosing) stack.push(element);
    } else {
      const next = source.indexOf("<", i);
      const text = source.slice(i, next < 0 ? source.length : next);
      if (stack.length > 0) stack.at(-1)!.children.push(decodeEntities(text));
      else if (text.trim()) fail("Text outside the root element");
      i = next < 0 ? source.length : next;
    }
  }
  if (stack.length > 0) fail(`Unclosed <${stack.at(-1)!.name}>`);
  if (!root) fail("No root element");
  return root!;
}

export function elements(element: XmlElement) {
  return element.children.filter((c): c is XmlElement => typeof c !== "string");
}

export function textOf(element: XmlElement): string {
  return element.children
    .map((c) => (typeof c === "string" ? c : textOf(c)))
    .join("")
    .trim();
}
