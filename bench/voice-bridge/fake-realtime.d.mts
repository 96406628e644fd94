// Types for fake-realtime.mjs (copied as is from ../shared/bench-cases/voice-bridge).
export declare const DELTA_TYPES: { ga: string; beta: string };
export declare function startFakeRealtime(options?: { port?: number; host?: string; api?: "ga" | "beta" }): Promise<{
  port: number;
  deltaType: string;
  stats: { connections: number; open: number; appends: number; other: number };
  close(): Promise<void>;
}>;
