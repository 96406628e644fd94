// First words: how long after the media stream's `start` the caller hears the agent. The realtime
// session is opened when Twilio fetches the TwiML, so the greeting is being generated while the
// stream connects. On loopback with the fake Twilio and a fake model that takes a fixed time to
// answer (its "thinking" time), this prints the time from `start` to the first agent audio frame
// Twilio receives, beside that fixed delay.
//
//   npx react-router build && npm run bench:first-words [-- --calls 10 --delay 600]
import { findCall } from "../models/calls";
import { startFakeRealtime } from "../tests/fakes/openai-realtime";
import { startFakeTwilio } from "../tests/fakes/twilio";
import { startAppInProcess } from "../tests/support/app-in-process";
import { waitFor } from "../tests/support/wait";
import { queueTestCall } from "../tests/support/queue-call";

const arg = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const CALLS = arg("calls", 10);
const DELAY_MS = arg("delay", 600);

const [twilio, realtime] = await Promise.all([startFakeTwilio(), startFakeRealtime({ audioSpeed: 1 })]);
realtime.setResponseDelay(DELAY_MS);
const app = await startAppInProcess({
  TWILIO_ACCOUNT_SID: twilio.accountSid,
  TWILIO_AUTH_TOKEN: twilio.authToken,
  TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
  TWILIO_API_URL: twilio.url,
  OPENAI_API_KEY: realtime.apiKey,
  OPENAI_BASE_URL: realtime.url,
  SEED_DEMO_DATA: "false",
  CALLS_PER_NUMBER_PER_DAY: "1000",
});

const firstWords: number[] = [];
const answerToStart: number[] = [];
try {
  for (let i = 0; i < CALLS; i++) {
    const call = await queueTestCall(app.services, {
      purpose: "test",
      to: `+1212555${String(7600 + i)}`,
      language: "en",
      voice: "alloy",
    });
    const sid = await waitFor(async () => (await findCall(app.services.db, call.id))?.providerCallId, {
      what: "the call",
      timeoutMs: 20_000,
    });
    const stream = await twilio.stream(sid, 20_000);
    await waitFor(() => (stream.outboundArrivals.length > 0 ? true : null), { what: "the first agent audio", timeoutMs: 20_000 });
    firstWords.push(stream.outboundArrivals[0]! - stream.startedAt!);
    const fake = twilio.calls.get(sid)!;
    answerToStart.push(stream.startedAt! + performance.timeOrigin - fake.startedAt!.getTime());
    await stream.hangup();
  }
} finally {
  await app.stop();
  await twilio.close();
  await realtime.close();
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)]!;
console.log(`${CALLS} calls, one after another; the fake model answers ${DELAY_MS} ms after each response.create`);
console.log(`| measure | median | max |`);
console.log(`|---|---|---|`);
console.log(`| the fake model's own delay | ${DELAY_MS} ms | ${DELAY_MS} ms |`);
console.log(
  `| answer → stream start (Twilio fetching TwiML, connecting) | ${median(answerToStart).toFixed(0)} ms | ${Math.max(...answerToStart).toFixed(0)} ms |`,
);
console.log(
  `| stream start → first agent audio at Twilio | ${median(firstWords).toFixed(0)} ms | ${Math.max(...firstWords).toFixed(0)} ms |`,
);
process.exit(0);
