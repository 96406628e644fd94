/** One sample of a Prometheus text exposition: its metric name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus's text format (what /metrics answers) into its samples. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there are none). */
export function sampleSum(samples: Sample[], name: string, labels: Record<string, string> = {}) {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** A test's METRICS_TOKEN. */
export const METRICS_TOKEN = "test-metrics-token-0123456789abcdef0123456789";

/** Reads the app's metrics listener with the token; the samples. */
export async function scrape(metricsUrl: string, token = METRICS_TOKEN) {
  const response = await fetch(metricsUrl, { headers: { Authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}
