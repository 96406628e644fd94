// Booking contention: 100 simultaneous bookings of one slot through the real HTTP API, on PGlite
// and on PostgreSQL (127.0.0.1:5432, or BENCH_DATABASE_URL). Prints the answers' counts and
// p50/p95/p99 latency, and the server's CPU time for the round (all its threads: JIT and GC
// helpers too). Needs the production build (`npx react-router build`).
//
//   npm run bench:contention [-- --cold] [-- --times]
import http from "node:http";
import { startServer } from "../tests/support/server";
import { cpuSeconds } from "./process-cpu";

const ATTEMPTS = 100;
const POSTGRES = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function round(label: string, databaseUrl: string | undefined) {
  if (databaseUrl) process.env.DATABASE_URL = databaseUrl;
  else delete process.env.DATABASE_URL;
  // BENCH_NODE_OPTIONS reaches the server (e.g. "--import ./profile.mjs", which may start node:inspector's profiler).
  const nodeOptions: Record<string, string> = process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {};
  const server = await startServer({ SEED_DEMO_DATA: "true", TRUST_PROXY: "1", ...nodeOptions }, { allowStderr: [/./], asDeployed: true });
  try {
    const services = (await (await fetch(`${server.url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
    const haircut = services.find((s) => s.name === "Haircut")!;
    let slot: { date: string; time: string } | undefined;
    for (let day = 1; day <= 31 && !slot; day++) {
      const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
      const response = await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`);
      if (response.status !== 200) continue;
      const free = ((await response.json()) as { time: string; available: boolean }[]).find((s) => s.available);
      if (free) slot = { date, time: free.time };
    }
    if (!slot) throw new Error("no free slot in the window");
    // A server in service is warm (see warmUp).
    if (!process.argv.includes("--cold")) await warmUp(server.url, haircut.id, slot.date);
    // Each request on a connection of its own; once all hundred are open, the requests go out
    // together, and each one's time runs from its sending to its whole answer. (Through fetch,
    // whose pool already held the warm-up's connection, the server saw one new connection per
    // answer it had sent: the requests waited in the client's queue, not the server's.)
    const requests = Array.from({ length: ATTEMPTS }, (_, i) =>
      openPost(
        `${server.url}/api/booking/create`,
        { "x-forwarded-for": `198.51.100.${(i % 250) + 1}` },
        {
          businessLink: "demo-salon",
          serviceId: haircut.id,
          appointmentDate: `${slot!.date}T${slot!.time}`,
          customerInfo: { name: "Bench", phone: `+1212555${String(1000 + i)}` },
          requestCall: false,
        },
      ),
    );
    await Promise.all(requests.map((request) => request.connected));
    const cpuBefore = cpuSeconds(server.pid);
    const answers = await Promise.all(requests.map((request) => request.send()));
    const cpuAfter = cpuSeconds(server.pid);
    const times = answers.map((a) => a.ms).sort((a, b) => a - b);
    // `--times`: every answer's time in the order the requests were sent, the booking marked with *.
    if (process.argv.includes("--times")) console.log(answers.map((a) => `${a.ms.toFixed(0)}${a.status === 201 ? "*" : ""}`).join(" "));
    const booked = answers.filter((a) => a.status === 201).length;
    const taken = answers.filter((a) => a.code === "slot_taken").length;
    const errors = answers.filter((a) => a.status >= 500).length;
    const other = ATTEMPTS - booked - taken - errors;
    console.log(
      `${label.padEnd(10)} booked ${booked}  slot_taken ${taken}  5xx ${errors}  other ${other}  ` +
        `p50 ${percentile(times, 50).toFixed(0)} ms  p95 ${percentile(times, 95).toFixed(0)} ms  p99 ${percentile(times, 99).toFixed(0)} ms  ` +
        `server CPU ${cpuBefore === null || cpuAfter === null ? "?" : `${((cpuAfter - cpuBefore) * 1000).toFixed(0)} ms`}`,
    );
    return booked === 1 && errors === 0;
  } finally {
    await server.stop();
  }
}

/**
 * A POST of JSON on a connection of its own (no pool), opened now and sent by `send()`, which
 * resolves with the answer's status, its `code` and the milliseconds from sending to the whole answer.
 */
function openPost(url: string, headers: Record<string, string>, body: unknown) {
  const payload = JSON.stringify(body);
  let started = 0;
  let answered: (answer: { status: number; code?: string; ms: number }) => void = () => {};
  let failed: (error: Error) => void = () => {};
  const answer = new Promise<{ status: number; code?: string; ms: number }>((resolve, reject) => {
    answered = resolve;
    failed = reject;
  });
  const request = http.request(
    url,
    {
      method: "POST",
      agent: false,
      headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
    },
    (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => {
        let code: string | undefined;
        try {
          code = (JSON.parse(text) as { code?: string }).code;
        } catch {
          code = undefined;
        }
        answered({ status: response.statusCode ?? 0, code, ms: performance.now() - started });
      });
    },
  );
  request.on("error", failed);
  const connected = new Promise<void>((resolve, reject) => {
    request.on("socket", (socket) => socket.once("connect", () => resolve()));
    request.on("error", reject);
  });
  return {
    connected,
    send() {
      started = performance.now();
      request.end(payload);
      return answer;
    },
  };
}

/**
 * What a server in service has done before a burst: bookings, and requests answered "taken" (100,
 * twenty at a time, each from an address and phone of its own, under the rate limits), so its
 * database connections are open and V8 has compiled the booking path, as any server that has
 * served a few minutes of traffic has. `--cold` skips it: the burst is then the server's first work.
 */
async function warmUp(url: string, serviceId: number, avoidDate: string) {
  const book = (forwardedFor: string, appointmentDate: string, phone: string) =>
    fetch(`${url}/api/booking/create`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
      body: JSON.stringify({
        businessLink: "demo-salon",
        serviceId,
        appointmentDate,
        customerInfo: { name: "Warm-up", phone },
        requestCall: false,
      }),
    }).then((response) => response.arrayBuffer());
  for (let day = 2; day <= 40; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    if (date === avoidDate) continue;
    const response = await fetch(`${url}/api/booking/availability/demo-salon/${date}/${serviceId}`);
    if (response.status !== 200) continue;
    const free = ((await response.json()) as { time: string; available: boolean }[]).filter((s) => s.available);
    if (free.length < 2) continue;
    for (const [i, s] of free.slice(0, 2).entries()) await book(`203.0.113.${i + 1}`, `${date}T${s.time}`, `+1212555${9000 + i}`);
    for (let sent = 0; sent < 100; sent += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, k) => book(`192.0.2.${sent + k + 1}`, `${date}T${free[0]!.time}`, `+1212556${1000 + sent + k}`)),
      );
    }
    return;
  }
}

const ok = [await round("PGlite", undefined), await round("PostgreSQL", POSTGRES)].every(Boolean);
process.exit(ok ? 0 : 1);
