import { describe, expect, it } from "vitest";
import {
  appendAudioMessage,
  callerAudioOf,
  markMessage,
  mediaMessage,
  parseModelEvent,
  parseTwilioMessage,
  readCallerAudio,
  readModelAudio,
  streamHeads,
} from "./bridge-codec.server";

const heard = (data: Buffer) => {
  const payloads: string[] = [];
  return { handled: readCallerAudio(data, (payload) => payloads.push(payload)), payloads };
};

describe("the bridge's codec", () => {
  it("reads Twilio's media messages on the fast path, and leaves Twilio's copy of our audio", () => {
    const inbound = Buffer.from(
      '{"event":"media","sequenceNumber":"3","media":{"track":"inbound","payload":"AAEC/w=="},"streamSid":"MZ1"}',
    );
    expect(heard(inbound)).toEqual({ handled: true, payloads: ["AAEC/w=="] });
    const untracked = Buffer.from('{"event":"media","media":{"payload":"AAEC"}}');
    expect(heard(untracked)).toEqual({ handled: true, payloads: ["AAEC"] });
    const outbound = Buffer.from('{"event":"media","media":{"track":"outbound","payload":"AAEC"}}');
    expect(heard(outbound)).toEqual({ handled: true, payloads: [] });
  });

  it("leaves anything else to the parsed path, which reads the same media", () => {
    for (const text of [
      '{ "event": "media", "media": {"payload":"AAEC"}}',
      '{"event":"media","media":{"payload":""}}',
      '{"event":"mark"}',
    ]) {
      expect(heard(Buffer.from(text)).handled).toBe(false);
    }
    expect(heard("text" as unknown as Buffer).handled).toBe(false);
    const spaced = parseTwilioMessage(Buffer.from('{ "event": "media", "media": {"payload":"AAEC"}}'))!;
    expect(callerAudioOf(spaced)).toBe("AAEC");
    expect(callerAudioOf({ event: "media", media: { payload: "AAEC", track: "outbound" } })).toBeNull();
    expect(parseTwilioMessage(Buffer.from("not json"))).toBeUndefined();
    expect(parseTwilioMessage(Buffer.from("null"))).toBeNull();
  });

  it("reads the model's audio deltas on the fast path, and parses the rest", () => {
    const played: [string, string][] = [];
    const play = (itemId: string, delta: string) => played.push([itemId, delta]);
    const delta = Buffer.from('{"type":"response.output_audio.delta","event_id":"e1","item_id":"item_1","delta":"AAEC"}');
    expect(readModelAudio(delta, play)).toBe(true);
    expect(played).toEqual([["item_1", "AAEC"]]);
    expect(readModelAudio(Buffer.from('{"type":"response.output_audio.delta","item_id":"a\\"b","delta":"AA"}'), play)).toBe(false);
    expect(readModelAudio(Buffer.from('{"type":"response.done"}'), play)).toBe(false);
    expect(played).toHaveLength(1);
    expect(parseModelEvent(Buffer.from('{"type":"response.done"}'))).toEqual({ type: "response.done" });
    expect(parseModelEvent(Buffer.from("{"))).toBeUndefined();
  });

  it("writes the audio, mark and append messages as the JSON they stand for", () => {
    const heads = streamHeads('MZ"1');
    expect(JSON.parse(mediaMessage(heads.media, "AAEC"))).toEqual({ event: "media", streamSid: 'MZ"1', media: { payload: "AAEC" } });
    expect(JSON.parse(markMessage(heads.mark, "m3"))).toEqual({ event: "mark", streamSid: 'MZ"1', mark: { name: "m3" } });
    expect(JSON.parse(appendAudioMessage("AAEC"))).toEqual({ type: "input_audio_buffer.append", audio: "AAEC" });
  });
});
