// One connection, part 3 (the class startFakeRealtime creates): receiving and dispatching client
// events, session.update, input audio with server VAD and commits, echo mode, and closing.
import type WebSocket from "ws";
import { bytesPerMs, windowRms } from "./audio";
import { CHUNK_MS, CLIENT_EVENT_KEYS } from "./constants";
import { ResponsesConnection } from "./responses";
import { nextSession, validateResponseParams } from "./session";
import type { Obj } from "./types";
import { checkKeys, clone, invalidType, invalidValue, isObj, missingParam, newId, RealtimeRequestError, str } from "./validation";

export class Connection extends ResponsesConnection {
  // --- receiving -------------------------------------------------------------------------------

  onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    const text = (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString("utf8");
    if (isBinary) {
      this.record.clientEvents.push({ type: "<binary>", bytes: text.length });
      this.sendError(new RealtimeRequestError("invalid_value", "Binary messages are not supported; send JSON text events."), null);
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch (error) {
      this.record.clientEvents.push({ type: "<invalid json>", raw: text.slice(0, 500) });
      this.sendError(
        new RealtimeRequestError("invalid_json", `We could not parse the JSON body of your request. (${(error as Error).message})`),
        null,
      );
      return;
    }
    if (!isObj(event)) {
      this.record.clientEvents.push({ type: "<not an object>", raw: text.slice(0, 500) });
      this.sendError(invalidType("(root)", "an object", event), null);
      return;
    }
    const clientEventId = typeof event.event_id === "string" ? event.event_id : null;
    // A stalled session hears nothing: no VAD, no responses, no errors.
    if (this.stalled) {
      if (event.type === "input_audio_buffer.append") this.record.audioIn.appends++;
      else {
        this.record.clientEvents.push(event);
        this.shared.emitter.emit("client", this.record.index, event);
      }
      return;
    }
    try {
      if (event.type === "input_audio_buffer.append") {
        this.append(event);
        return;
      }
      this.record.clientEvents.push(event);
      this.shared.emitter.emit("client", this.record.index, event);
      this.dispatch(event);
    } catch (error) {
      if (!(error instanceof RealtimeRequestError)) throw error;
      this.sendError(error, clientEventId);
    }
  }

  private dispatch(event: Obj): void {
    if (event.type === undefined) throw missingParam("type");
    if (typeof event.type !== "string") throw invalidType("type", "a string", event.type);
    const keys = CLIENT_EVENT_KEYS[event.type];
    if (!keys) throw invalidValue("type", event.type, Object.keys(CLIENT_EVENT_KEYS));
    checkKeys(event, keys, "");
    if (event.event_id !== undefined) str(event.event_id, "event_id");
    switch (event.type) {
      case "session.update":
        return this.sessionUpdate(event);
      case "input_audio_buffer.commit":
        return this.manualCommit();
      case "input_audio_buffer.clear":
        this.pending = Buffer.alloc(0);
        this.bufferMs = 0;
        this.vad.speaking = false;
        return this.send({ type: "input_audio_buffer.cleared" });
      case "conversation.item.create":
        return this.itemCreate(event);
      case "conversation.item.truncate":
        return this.truncate(event);
      case "conversation.item.delete":
        return this.itemDelete(event);
      case "conversation.item.retrieve": {
        const item = this.findItem(str(event.item_id, "item_id"), "item_retrieve_invalid_item_id");
        return this.send({ type: "conversation.item.retrieved", item: clone(item) as any });
      }
      case "response.create":
        this.startResponse("response.create", event.response === undefined ? null : validateResponseParams(event.response));
        return;
      case "response.cancel":
        return this.clientCancel(event);
      case "output_audio_buffer.clear":
        throw new RealtimeRequestError(
          "invalid_value",
          "output_audio_buffer.clear is only supported for WebRTC and SIP connections; over WebSocket, truncate the item instead.",
          "type",
        );
    }
  }

  private sessionUpdate(event: Obj): void {
    const next = nextSession(event.session, this.record.session, this.audioProduced);
    const before = this.record.session;
    this.record.session = next;
    if (JSON.stringify(before.audio.input.format) !== JSON.stringify(next.audio.input.format)) this.pending = Buffer.alloc(0);
    if (!next.audio.input.turn_detection) this.vad.speaking = false;
    this.send({ type: "session.updated", session: clone(next) as any });
  }

  // --- input audio and VAD -----------------------------------------------------------------------

  private append(event: Obj): void {
    checkKeys(event, CLIENT_EVENT_KEYS["input_audio_buffer.append"]!, "");
    const audio = str(event.audio, "audio");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(audio) || audio.length % 4 === 1)
      throw invalidValue(
        "audio",
        `${audio.slice(0, 20)}${audio.length > 20 ? "…" : ""}`,
        undefined,
        "Expected base64-encoded audio bytes.",
      );
    const bytes = Buffer.from(audio, "base64");
    const format = this.record.session.audio.input.format;
    this.record.audioIn.appends += 1;
    this.record.audioIn.bytes += bytes.length;
    this.record.audioIn.ms = this.record.audioIn.bytes / bytesPerMs(format);
    this.lastAppend = { type: "input_audio_buffer.append", event_id: event.event_id ?? null, audio_bytes: bytes.length };
    this.shared.emitter.emit("client", this.record.index, this.lastAppend);
    if (this.shared.echoMode) return this.echoFrame(bytes);

    const windowBytes = CHUNK_MS * bytesPerMs(format);
    const audioBuf = this.pending.length ? Buffer.concat([this.pending, bytes]) : bytes;
    let offset = 0;
    while (audioBuf.length - offset >= windowBytes) {
      this.vadWindow(audioBuf.subarray(offset, offset + windowBytes), format.type);
      offset += windowBytes;
    }
    this.pending = Buffer.from(audioBuf.subarray(offset));
  }

  private vadWindow(window: Buffer, formatType: string): void {
    const start = this.inputMs;
    this.inputMs += CHUNK_MS;
    this.bufferMs += CHUNK_MS;
    const td = this.record.session.audio.input.turn_detection as Obj | null;
    if (!td || this.closed) return;
    const speech = windowRms(window, formatType) > 1600 * (td.threshold ?? 0.5);
    if (!this.vad.speaking) {
      if (!speech) return;
      this.vad.speaking = true;
      this.vad.silenceMs = 0;
      this.vad.itemId = newId("item");
      this.send({
        type: "input_audio_buffer.speech_started",
        audio_start_ms: Math.max(0, start - (td.prefix_padding_ms ?? 300)),
        item_id: this.vad.itemId,
      });
      if (td.interrupt_response !== false && this.active) this.finish(this.active, "cancelled", "turn_detected");
      return;
    }
    if (speech) {
      this.vad.silenceMs = 0;
      return;
    }
    this.vad.silenceMs += CHUNK_MS;
    if (this.vad.silenceMs < (td.silence_duration_ms ?? 500)) return;
    this.vad.speaking = false;
    const itemId = this.vad.itemId;
    this.send({ type: "input_audio_buffer.speech_stopped", audio_end_ms: this.inputMs, item_id: itemId });
    this.commit(itemId);
    if (td.create_response !== false && !this.active) this.startResponse("server_vad", null);
  }

  private manualCommit(): void {
    const ms = this.bufferMs + this.pending.length / bytesPerMs(this.record.session.audio.input.format);
    if (ms < 100)
      throw new RealtimeRequestError(
        "input_audio_buffer_commit_empty",
        `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${ms.toFixed(2)}ms of audio.`,
      );
    const itemId = this.vad.speaking ? this.vad.itemId : newId("item");
    this.vad.speaking = false;
    this.pending = Buffer.alloc(0);
    this.commit(itemId);
  }

  private commit(itemId: string): void {
    const previous = this.lastItemId();
    this.userAudioMs += this.bufferMs;
    this.bufferMs = 0;
    const item = {
      id: itemId,
      object: "realtime.item",
      type: "message",
      status: "completed",
      role: "user",
      content: [{ type: "input_audio", transcript: null as string | null }],
    };
    this.send({ type: "input_audio_buffer.committed", item_id: itemId, previous_item_id: previous });
    this.record.conversation.push(item);
    this.send({ type: "conversation.item.added", item: clone(item) as Obj as any, previous_item_id: previous });
    this.send({ type: "conversation.item.done", item: clone(item) as Obj as any, previous_item_id: previous });
    const transcript = this.takeCallerTranscript();
    const transcription = this.record.session.audio.input.transcription as Obj | null;
    if (!transcription) return;
    // Transcription runs beside the response: it arrives after response.created.
    setImmediate(() => {
      if (this.closed) return;
      item.content[0]!.transcript = transcript;
      const audioTokens = Math.ceil(this.userAudioMs / 100);
      const textTokens = Math.ceil(transcript.length / 4);
      this.send({ type: "conversation.item.input_audio_transcription.delta", item_id: itemId, content_index: 0, delta: transcript });
      this.send({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: itemId,
        content_index: 0,
        transcript,
        usage:
          transcription.model === "whisper-1"
            ? { type: "duration", seconds: Math.round(this.userAudioMs / 100) / 10 }
            : {
                type: "tokens",
                input_tokens: audioTokens,
                output_tokens: textTokens,
                total_tokens: audioTokens + textTokens,
                input_token_details: { audio_tokens: audioTokens, text_tokens: 0 },
              },
      });
    });
  }

  private echoFrame(bytes: Buffer): void {
    if (!this.echo) {
      const r = this.newRun("echo", null, null);
      this.echo = r;
      this.send({ type: "response.created", response: this.responseObject(r) });
      this.openMessage(r, 0);
    }
    const r = this.echo;
    const out = Buffer.from(bytes);
    const stamp = Buffer.alloc(4);
    stamp.writeUInt32BE(this.echoSeq++ >>> 0);
    stamp.copy(out, 0, 0, Math.min(4, out.length));
    this.audioProduced = true;
    const ms = out.length / bytesPerMs(r.format);
    r.record.audioMs += ms;
    const itemId = r.open!.item.id as string;
    this.itemAudioMs.set(itemId, (this.itemAudioMs.get(itemId) ?? 0) + ms);
    this.send({
      type: "response.output_audio.delta",
      response_id: r.id,
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      delta: out.toString("base64"),
    });
  }

  endEcho(): void {
    if (this.echo) this.finish(this.echo, "completed");
    this.echo = null;
  }

  disconnect(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  release(): void {
    for (const r of [...this.held]) r.wake?.();
  }

  onClose(code: number): void {
    this.closed = true;
    this.record.closed = true;
    this.record.closeCode = code;
    for (const r of this.running) {
      r.status = "cancelled";
      r.record.status = "cancelled";
      r.record.reason = "connection_closed";
      r.wake?.();
    }
    this.running.clear();
    this.active = null;
    this.echo = null;
  }
}
