import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * What no log line may hold (issue 49): the shapes of phone numbers, e-mail addresses and tokens,
 * and the customers' names the test suite books and calls with. Applied to the lines the app's
 * logger really wrote during a run (tests/support/setup.ts keeps them in SAKINA_LOG_DIR).
 */
const SHAPES: [string, RegExp][] = [
  ["a phone number", /(?<![\w+])\+[1-9]\d{7,14}(?!\d)|(?<![\w+])\+[1-9]\d{0,3}[ (-]\(?\d{2,4}\)?[ -]\d{3,4}[ -]?\d{3,4}/],
  ["an e-mail address", /[\w.+-]+@[\w-]+\.[\w.-]+/],
  ["a token", /\b(?:sk|rk|whsec)_(?:test|live)_\w{6,}|\bBearer\s+[\w.~+/-]{8,}|\beyJ[\w-]+\.[\w-]+\.[\w-]+/],
];

/** Whose names the suite uses for its customers: the names given with a phone number, or as a customer's, in the test sources. */
export function customerNamesInTests(root: string) {
  const names = new Set<string>(["Layla Hassan"]);
  const folders = ["tests/integration", "tests/e2e", "tests/support", "tests/cluster"].map((folder) => path.join(root, folder));
  for (const folder of folders) {
    for (const file of readdirSync(folder, { recursive: true, encoding: "utf8" })) {
      if (!/\.tsx?$/.test(file)) continue;
      const source = readFileSync(path.join(folder, file), "utf8");
      for (const match of source.matchAll(/\b(?:name: "([^"]{4,})", phone|customerName: "([^"]{4,})"|fullName: "([^"]{4,})")/g)) {
        names.add((match[1] ?? match[2] ?? match[3])!);
      }
    }
  }
  return [...names];
}

export interface Finding {
  what: string;
  file: string;
  line: string;
}

/** The lines of `text` that hold any of it: each with what it held. */
export function findLeaks(text: string, names: string[], file = "?"): Finding[] {
  const nameShapes: [string, RegExp][] = names.map((name) => [
    `the customer's name "${name}"`,
    new RegExp(`(?<![\\p{L}\\p{N}])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}\\p{N}])`, "u"),
  ]);
  const findings: Finding[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    for (const [what, shape] of [...SHAPES, ...nameShapes]) if (shape.test(line)) findings.push({ what, file, line: line.slice(0, 400) });
  }
  return findings;
}

/** Every line collected in `dir`, scanned. */
export function scanLogDir(dir: string, names: string[]) {
  const files = readdirSync(dir).filter((file) => file.endsWith(".jsonl"));
  let lines = 0;
  const findings: Finding[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(dir, file), "utf8");
    lines += text.split("\n").filter(Boolean).length;
    findings.push(...findLeaks(text, names, file));
  }
  return { files: files.length, lines, findings };
}
