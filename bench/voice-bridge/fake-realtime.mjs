#!/usr/bin/env node
// A stand-in for the OpenAI Realtime WebSocket API that echoes caller audio straight back.
//
// Every `input_audio_buffer.append` is answered at once with one audio delta carrying the same
// base64 audio, so a bridge under load sees one model frame per caller frame and the load
// generator can time the whole round trip. It is deliberately cheap (no JSON parse or stringify on
// the hot path) so that it is never the bottleneck. Any path and query are accepted.
//
//   node fake-realtime.mjs [--port 8099] [--host 127.0.0.1] [--api ga|beta] [--quiet]
//
// --api ga   -> `response.output_audio.delta` (Realtime GA, the default)
// --api beta -> `response.audio.delta` (the older beta API)
//
// load.mjs can also run it in its own process (--embed-fake), which saves the context switches
// between two processes that share one core.
import { WebSocketServer } from "ws";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

export const DELTA_TYPES = { ga: "response.output_audio.delta", beta: "response.audio.delta" };

const APPEND = Buffer.from("input_audio_buffer.append");
const AUDIO_KEY = Buffer.from('"audio":"');
const CLOSE = Buffer.from('"}');
const QUOTE = 0x22;

/** Starts the fake; resolves to { port, stats, close } once it listens. */
export function startFakeRealtime({ port = 8099, host = "127.0.0.1", api = "ga" } = {}) {
  const deltaType = DELTA_TYPES[api];
  if (!deltaType) throw new Error(`api must be ga or beta, not ${api}`);
  let eventCounter = 0;
  let sessionCounter = 0;
  const stats = { connections: 0, open: 0, appends: 0, other: 0 };

  const wss = new WebSocketServer({
    host,
    port: Number(port),
    perMessageDeflate: false,
    skipUTF8Validation: true,
    clientTracking: false,
  });

  wss.on("connection", (ws, req) => {
    stats.connections++;
    stats.open++;
    const id = ++sessionCounter;
    const model = new URL(req.url, "http://x").searchParams.get("model") ?? "gpt-realtime";
    // One response and one item per connection: a bridge that tracks item ids sees stable ones.
    const prefix = Buffer.from(
      `{"type":"${deltaType}","response_id":"resp_fake${id}","item_id":"item_fake${id}",` +
        `"output_index":0,"content_index":0,"event_id":"event_`,
    );
    const send = (obj) => ws.send(JSON.stringify({ event_id: `event_${++eventCounter}`, ...obj }));
    send({ type: "session.created", session: { id: `sess_fake${id}`, object: "realtime.session", model } });

    ws.on("message", (data) => {
      // Hot path: find the audio without parsing the whole message.
      if (data.indexOf(APPEND) !== -1) {
        let start = data.indexOf(AUDIO_KEY);
        let audio;
        if (start !== -1) {
          start += AUDIO_KEY.length;
          audio = data.subarray(start, data.indexOf(QUOTE, start));
        } else {
          audio = Buffer.from(JSON.parse(data).audio ?? "");
        }
        stats.appends++;
        const tail = Buffer.from(`${++eventCounter}","delta":"`);
        ws.send(Buffer.concat([prefix, tail, audio, CLOSE]), { binary: false });
        return;
      }
      stats.other++;
      let msg;
      try {
        msg = JSON.parse(data);
      } catch {
        return send({ type: "error", error: { type: "invalid_request_error", message: "bad JSON" } });
      }
      if (msg.type === "session.update") {
        send({ type: "session.updated", session: { id: `sess_fake${id}`, ...msg.session } });
      }
      // Everything else (truncate, commit, response.create ...) is accepted silently.
    });
    ws.on("close", () => stats.open--);
    ws.on("error", () => {});
  });

  return new Promise((resolve, reject) => {
    wss.once("error", reject);
    wss.once("listening", () => resolve({ port: wss.address().port, deltaType, stats, close: () => new Promise((r) => wss.close(r)) }));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values: opts } = parseArgs({
    options: {
      port: { type: "string", default: process.env.FAKE_REALTIME_PORT ?? "8099" },
      host: { type: "string", default: "127.0.0.1" },
      api: { type: "string", default: "ga" },
      quiet: { type: "boolean", default: false },
    },
  });
  const fake = await startFakeRealtime(opts);
  console.log(`fake-realtime listening on ws://${opts.host}:${fake.port} (${fake.deltaType})`);
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.on(sig, () => {
      if (!opts.quiet) console.log(`fake-realtime stats ${JSON.stringify(fake.stats)}`);
      process.exit(0);
    });
  }
}
