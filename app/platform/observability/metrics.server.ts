import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * What this process counts, in the Prometheus format (prom-client), served on the metrics
 * listener (metrics-listener.server.ts), never on the public port. One registry per process:
 * every process kind (web, bridge, worker) has these, and reports what it did.
 *
 * Labels are few and bounded: route patterns (never a URL), call purposes, outcomes, queue and
 * limit names. Never an id, a phone number or an address. What the database knows (calls live,
 * refunds waiting, jobs waiting) is read at each scrape (app/server/metrics-gauges.server.ts).
 */
export const metricsRegistry = new Registry();

// Event-loop delay, memory, CPU, handles: prom-client's defaults (nodejs_*, process_*).
collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 20 });

const registers = [metricsRegistry];

export const httpRequestDuration = new Histogram({
  name: "sakina_http_request_duration_seconds",
  help: "HTTP requests answered, by method, route pattern and status, and how long each took",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const callsPlaced = new Counter({
  name: "sakina_calls_placed_total",
  help: "Calls the telephony provider accepted (dialled), by purpose",
  labelNames: ["purpose"] as const,
  registers,
});

export const callsFinished = new Counter({
  name: "sakina_calls_finished_total",
  help: "Calls that ended, by purpose and outcome (completed, no-answer, busy, failed, canceled)",
  labelNames: ["purpose", "outcome"] as const,
  registers,
});

export const dialFailures = new Counter({
  name: "sakina_call_dial_failures_total",
  help: "Dials the telephony provider refused or did not answer, by purpose and whether it is retried (transient)",
  labelNames: ["purpose", "transient"] as const,
  registers,
});

export const paymentToDial = new Histogram({
  name: "sakina_paid_call_payment_to_dial_seconds",
  help: "Time from a paid call's payment to its first dial",
  buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 900, 3600],
  registers,
});

export const bridgeStreamsLive = new Gauge({
  name: "sakina_bridge_streams_live",
  help: "Call audio streams this process bridges right now, by kind (phone: Twilio's media streams; web: browser voice calls)",
  labelNames: ["kind"] as const,
  registers,
});

export const bridgeFirstWords = new Histogram({
  name: "sakina_bridge_first_words_seconds",
  help: "Time from a call's stream start to the agent's first audio",
  buckets: [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10],
  registers,
});

export const bridgeTurnLatency = new Histogram({
  name: "sakina_bridge_turn_latency_seconds",
  help: "Time from the end of the caller's turn to the agent's first audio in reply",
  buckets: [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5],
  registers,
});

export const bridgeFramesDropped = new Counter({
  name: "sakina_bridge_frames_dropped_total",
  help: "Audio frames the bridge dropped (a stream's backlog over its limit)",
  registers,
});

export const paymentsReceived = new Counter({
  name: "sakina_payments_total",
  help: "Payments taken (a paid call's $5 claimed by its call), by kind",
  labelNames: ["kind"] as const,
  registers,
});

export const refunds = new Counter({
  name: "sakina_refunds_total",
  help: "Refund attempts by result: refunded (the money went back), error (the provider refused; retried), given_up (no try left: refund_failed)",
  labelNames: ["result"] as const,
  registers,
});

export const bookingsMade = new Counter({
  name: "sakina_bookings_total",
  help: "Bookings made, by where (page, agent)",
  labelNames: ["source"] as const,
  registers,
});

export const emailsSent = new Counter({
  name: "sakina_emails_sent_total",
  help: "E-mails handed to the mail server, by result (sent, error)",
  labelNames: ["result"] as const,
  registers,
});

export const textsSent = new Counter({
  name: "sakina_texts_total",
  help: "Texts (SMS) the gate settled, by result (sent, refused, opted_out, failed, unconfirmed, retry)",
  labelNames: ["result"] as const,
  registers,
});

export const rateLimitRefusals = new Counter({
  name: "sakina_rate_limit_refusals_total",
  help: "Requests a rate limit refused, by the limit's name",
  labelNames: ["limit"] as const,
  registers,
});

export const jobRuns = new Counter({
  name: "sakina_job_runs_total",
  help: "Jobs this process ran, by queue and result (completed, failed)",
  labelNames: ["queue", "result"] as const,
  registers,
});

/** A limit's name as a label: its kind before any per-thing part ("login:ip", never a subject). */
export function limitLabel(name: string) {
  return /^[a-z-]+(?::[a-z-]+)?$/.test(name) ? name : "other";
}
