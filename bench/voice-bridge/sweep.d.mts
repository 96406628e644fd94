// Types of sweep.mjs's module interface, for bench/bridge.bench.ts.

/** The JSON line load.mjs prints for one point (the fields the bench reads). */
export interface LoadResult {
  label?: string;
  calls_requested: number;
  calls_connected: number;
  frames_sent: number;
  frames_returned: number;
  loss_pct: number;
  rtt_ms: { p50: number | null; p90: number | null; p99: number | null; max: number | null; mean: number | null };
  bridge_cpu_pct: number | null;
  bridge_cpu_us_per_frame: number | null;
  bridge_rss_mb: number | null;
  load_cpu_pct: number;
  fake_cpu_pct: number | null;
  cores: Record<string, { busy: number; softirq: number; steal: number }>;
  gen_lag_ms: { p99: number | null; max: number | null };
  marks_received: number;
  marks_echoed: number;
  clears: number;
  misrouted: number;
  closed_early: number;
  errors: number;
}

export interface SweepTarget {
  label: string;
  /** The bridge's command, run with `sh -c` in `cwd`; {PORT}, {REALTIME_URL}… are filled in. */
  cmd: string;
  cwd?: string;
  /** NAME=VALUE, with the same placeholders. */
  env?: string[];
  path?: string;
  /** Before the bridge starts: more load.mjs arguments for a point of n calls. */
  prepare?: (n: number, bridge: { port: number }) => Promise<string[]>;
}

export type SweepOptions = Record<string, string | boolean | string[] | undefined>;

export function sweepDefaults(): SweepOptions;

export function sweeper(opts: SweepOptions): {
  measure(n: number, run: number, target: SweepTarget): Promise<LoadResult>;
  passes(r: LoadResult): boolean;
  stopsSweep(r: LoadResult): boolean;
  header(): string;
  row(r: LoadResult): string;
  record(r: LoadResult & { refine?: boolean }, run: number, label?: string): void;
  LEGEND: string;
  P99_LIMIT: number;
};
