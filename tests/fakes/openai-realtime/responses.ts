// One connection, part 2: the responses the scripted "model" gives: taking script steps, streaming
// spoken or text messages paced like real audio, function calls, cancelling and finishing a
// response, and the response object with its usage.
import { performance } from "node:perf_hooks";
import { audioMsForText, toneChunk } from "./audio";
import { ConnectionBase } from "./connection-base";
import { CHUNK_MS, DEFAULT_CALLER_TRANSCRIPT, DEFAULT_REPLY } from "./constants";
import type { OpenPart, ResponseRun } from "./state";
import type { FakeResponseRecord, Obj, ScriptStep } from "./types";
import { clone, newId, RealtimeRequestError, str } from "./validation";

function splitWords(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [text];
}

export class ResponsesConnection extends ConnectionBase {
  // --- responses ---------------------------------------------------------------------------------

  private takeStep(): ScriptStep | null {
    const i = this.record.script.findIndex((s) => !("transcriptOfCaller" in s));
    return i < 0 ? null : this.record.script.splice(i, 1)[0]!;
  }

  protected takeCallerTranscript(): string {
    const i = this.record.script.findIndex((s) => "transcriptOfCaller" in s);
    if (i < 0) return DEFAULT_CALLER_TRANSCRIPT;
    return (this.record.script.splice(i, 1)[0] as { transcriptOfCaller: string }).transcriptOfCaller;
  }

  protected newRun(trigger: FakeResponseRecord["trigger"], params: Obj | null, step: ScriptStep | null): ResponseRun {
    const session = this.record.session;
    const r: ResponseRun = {
      id: newId("resp"),
      record: {
        id: "",
        trigger,
        params,
        instructions: params?.instructions ?? session.instructions,
        step,
        status: "in_progress",
        reason: null,
        audioMs: 0,
        transcript: "",
      },
      conversation: params?.conversation === "none" ? "none" : "auto",
      modality: (params?.output_modalities ?? session.output_modalities)[0] === "text" ? "text" : "audio",
      format: clone(params?.audio?.output?.format ?? session.audio.output.format),
      voice: clone(params?.audio?.output?.voice ?? session.audio.output.voice),
      maxOutputTokens: params?.max_output_tokens ?? session.max_output_tokens,
      metadata: params?.metadata ?? null,
      status: "in_progress",
      statusDetails: null,
      output: [],
      open: null,
      speed: this.shared.audioSpeed,
      clockStart: null,
      timer: null,
      wake: null,
    };
    r.record.id = r.id;
    this.record.responses.push(r.record);
    this.running.add(r);
    return r;
  }

  protected startResponse(trigger: "server_vad" | "response.create", params: Obj | null): void {
    if (params?.conversation !== "none" && this.active)
      throw new RealtimeRequestError(
        "conversation_already_has_active_response",
        `Conversation already has an active response in progress: ${this.active.id}. Wait until the response is finished before creating a new one.`,
      );
    if (this.shared.echoMode) {
      const r = this.newRun(trigger, params, null);
      this.send({ type: "response.created", response: this.responseObject(r) });
      this.finish(r, "completed");
      return;
    }
    const step = this.takeStep();
    const r = this.newRun(trigger, params, step);
    if (r.conversation === "auto") this.active = r;
    this.send({ type: "response.created", response: this.responseObject(r) });
    this.send({
      type: "rate_limits.updated",
      rate_limits: [
        { name: "requests", limit: 5000, remaining: 4999, reset_seconds: 0.012 },
        { name: "tokens", limit: 40000, remaining: 38500, reset_seconds: 2.25 },
      ],
    });
    this.run(r, step).catch((error: unknown) => {
      this.record.problems.push(`response ${r.id} crashed: ${String(error)}`);
      this.finish(r, "failed", "fake_error");
    });
  }

  private async run(r: ResponseRun, step: ScriptStep | null): Promise<void> {
    if (this.shared.responseDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.shared.responseDelayMs));
      if (r.status !== "in_progress" || this.closed) return;
    }
    const s = step ?? { say: DEFAULT_REPLY };
    if ("silent" in s || ("held" in s && s.held)) {
      if (!("silent" in s)) this.held.add(r);
      // finish() (a cancel) and onClose wake it too.
      await new Promise<void>((resolve) => {
        r.wake = () => {
          r.wake = null;
          resolve();
        };
      });
      this.held.delete(r);
      if ("silent" in s || r.status !== "in_progress" || this.closed) return;
    }
    if ("tool" in s) {
      const tools: Obj[] = r.record.params?.tools ?? this.record.session.tools;
      const choice = r.record.params?.tool_choice ?? this.record.session.tool_choice;
      if (choice === "none" || !tools.some((t) => t.type === "function" && t.name === s.tool)) {
        this.record.problems.push(
          `response ${r.id}: the script calls tool '${s.tool}', but ${choice === "none" ? 'tool_choice is "none"' : "the session has no function tool of that name"} (tools: ${tools.map((t) => t.name).join(", ") || "none"})`,
        );
        this.finish(r, "failed", "tool_not_configured");
        return;
      }
      let index = 0;
      if (s.say) {
        await this.streamMessage(r, index++, s.say);
        if (r.status !== "in_progress") return;
      }
      this.functionCall(r, index, s.tool, s.arguments);
    } else if ("say" in s) {
      await this.streamMessage(r, 0, s.say);
      if (r.status !== "in_progress") return;
    }
    this.finish(r, "completed");
    if ("say" in s && "stallAfter" in s && s.stallAfter) this.stall();
  }

  protected openMessage(r: ResponseRun, outputIndex: number): OpenPart {
    const item: Obj = {
      id: newId("item"),
      object: "realtime.item",
      type: "message",
      status: "in_progress",
      role: "assistant",
      content: [],
    };
    r.output.push(item);
    this.send({ type: "response.output_item.added", response_id: r.id, output_index: outputIndex, item: clone(item) as any });
    const previousItemId = this.lastItemId();
    if (r.conversation === "auto") {
      this.record.conversation.push(item);
      this.send({ type: "conversation.item.added", item: clone(item) as any, previous_item_id: previousItemId });
    }
    const kind = r.modality;
    this.send({
      type: "response.content_part.added",
      response_id: r.id,
      item_id: item.id,
      output_index: outputIndex,
      content_index: 0,
      part: kind === "audio" ? { type: "audio", transcript: "" } : { type: "text", text: "" },
    });
    r.open = { kind, item, outputIndex, previousItemId, text: "" };
    if (kind === "audio") this.itemAudioMs.set(item.id, 0);
    return r.open;
  }

  private async streamMessage(r: ResponseRun, outputIndex: number, text: string): Promise<void> {
    const open = this.openMessage(r, outputIndex);
    const ids = { response_id: r.id, item_id: open.item.id as string, output_index: outputIndex, content_index: 0 };
    const words = splitWords(text);
    if (open.kind === "text") {
      for (const word of words) {
        open.text += word;
        this.send({ type: "response.output_text.delta", ...ids, delta: word });
      }
      this.closePart(r, "completed");
      return;
    }
    const chunk = toneChunk(r.format.type ?? "audio/pcm");
    const chunkMs = CHUNK_MS;
    const total = audioMsForText(text) / chunkMs;
    let sentWords = 0;
    for (let k = 0; k < total; k++) {
      await this.pace(r, k);
      if (r.status !== "in_progress" || this.closed) return;
      while (sentWords < words.length && sentWords * total <= k * words.length) {
        const word = words[sentWords++]!;
        open.text += word;
        this.send({ type: "response.output_audio_transcript.delta", ...ids, delta: word });
      }
      this.audioProduced = true;
      r.record.audioMs += chunkMs;
      this.itemAudioMs.set(ids.item_id, (this.itemAudioMs.get(ids.item_id) ?? 0) + chunkMs);
      this.send({ type: "response.output_audio.delta", ...ids, delta: chunk.base64 });
    }
    while (sentWords < words.length) {
      const word = words[sentWords++]!;
      open.text += word;
      this.send({ type: "response.output_audio_transcript.delta", ...ids, delta: word });
    }
    this.closePart(r, "completed");
  }

  /** Waits until chunk k is due: k × 20 ms of audio after the first chunk, divided by the speed. */
  private pace(r: ResponseRun, k: number): Promise<void> {
    if (!Number.isFinite(r.speed)) return k % 50 === 49 ? new Promise((resolve) => setImmediate(resolve)) : Promise.resolve();
    const now = performance.now();
    r.clockStart ??= now;
    const wait = r.clockStart + (k * CHUNK_MS) / r.speed - now;
    if (wait <= 0.5) return Promise.resolve();
    return new Promise((resolve) => {
      r.wake = () => {
        r.wake = null;
        if (r.timer) clearTimeout(r.timer);
        r.timer = null;
        resolve();
      };
      r.timer = setTimeout(() => r.wake?.(), wait);
    });
  }

  private closePart(r: ResponseRun, itemStatus: "completed" | "incomplete"): void {
    const open = r.open;
    if (!open) return;
    r.open = null;
    const ids = { response_id: r.id, item_id: open.item.id as string, output_index: open.outputIndex, content_index: 0 };
    if (open.kind === "audio") {
      this.send({ type: "response.output_audio.done", ...ids });
      this.send({ type: "response.output_audio_transcript.done", ...ids, transcript: open.text });
      this.send({ type: "response.content_part.done", ...ids, part: { type: "audio", transcript: open.text } });
      open.item.content = [{ type: "output_audio", transcript: open.text }];
    } else {
      this.send({ type: "response.output_text.done", ...ids, text: open.text });
      this.send({ type: "response.content_part.done", ...ids, part: { type: "text", text: open.text } });
      open.item.content = [{ type: "output_text", text: open.text }];
    }
    open.item.status = itemStatus;
    r.record.transcript += open.text;
    this.send({ type: "response.output_item.done", response_id: r.id, output_index: open.outputIndex, item: clone(open.item) as any });
    if (r.conversation === "auto")
      this.send({ type: "conversation.item.done", item: clone(open.item) as any, previous_item_id: open.previousItemId });
  }

  private functionCall(r: ResponseRun, outputIndex: number, name: string, args: object): void {
    const callId = newId("call", 16);
    const item: Obj = {
      id: newId("item"),
      object: "realtime.item",
      type: "function_call",
      status: "in_progress",
      name,
      call_id: callId,
      arguments: "",
    };
    r.output.push(item);
    this.send({ type: "response.output_item.added", response_id: r.id, output_index: outputIndex, item: clone(item) as any });
    const previousItemId = this.lastItemId();
    if (r.conversation === "auto") {
      this.record.conversation.push(item);
      this.send({ type: "conversation.item.added", item: clone(item) as any, previous_item_id: previousItemId });
    }
    const json = JSON.stringify(args);
    const ids = { response_id: r.id, item_id: item.id as string, output_index: outputIndex, call_id: callId };
    for (let i = 0; i < json.length; i += 16)
      this.send({ type: "response.function_call_arguments.delta", ...ids, delta: json.slice(i, i + 16) });
    this.send({ type: "response.function_call_arguments.done", ...ids, name, arguments: json });
    item.arguments = json;
    item.status = "completed";
    this.record.toolCalls.push({ call_id: callId, name, arguments: json, response_id: r.id, item_id: item.id });
    this.send({ type: "response.output_item.done", response_id: r.id, output_index: outputIndex, item: clone(item) as any });
    if (r.conversation === "auto")
      this.send({ type: "conversation.item.done", item: clone(item) as any, previous_item_id: previousItemId });
  }

  protected clientCancel(event: Obj): void {
    const id = event.response_id === undefined ? null : str(event.response_id, "response_id");
    const target = id === null ? this.active : [...this.running].find((r) => r.id === id && r !== this.echo);
    if (!target)
      throw new RealtimeRequestError(
        "response_cancel_not_active",
        "Cancellation failed: no active response found",
        id === null ? null : "response_id",
      );
    this.finish(target, "cancelled", "client_cancelled");
  }

  /** Ends a response: closes its open part, sends response.done. */
  protected finish(r: ResponseRun, status: "completed" | "cancelled" | "failed", reason?: string): void {
    if (r.status !== "in_progress") return;
    this.closePart(r, status === "completed" ? "completed" : "incomplete");
    r.status = status;
    r.record.status = status;
    r.record.reason = reason ?? null;
    r.statusDetails =
      status === "completed"
        ? null
        : status === "cancelled"
          ? { type: "cancelled", reason }
          : { type: "failed", error: { type: "invalid_request_error", code: reason ?? null } };
    r.wake?.();
    this.running.delete(r);
    if (this.active === r) this.active = null;
    this.send({ type: "response.done", response: this.responseObject(r) });
  }

  protected responseObject(r: ResponseRun): Obj {
    const done = r.status !== "in_progress";
    const session = this.record.session;
    const inputText = Math.ceil(
      (String(r.record.instructions).length + JSON.stringify(r.record.params?.tools ?? session.tools).length) / 4 +
        10 * this.record.conversation.length,
    );
    const inputAudio = Math.ceil(this.userAudioMs / 100);
    const outputAudio = Math.ceil(r.record.audioMs / 50);
    const outputText = Math.ceil(
      r.output.reduce((n, i) => n + String(i.content?.[0]?.transcript ?? i.content?.[0]?.text ?? i.arguments ?? "").length, 0) / 4,
    );
    return {
      object: "realtime.response",
      id: r.id,
      status: r.status,
      status_details: r.statusDetails,
      output: done ? clone(r.output) : [],
      conversation_id: r.conversation === "none" ? null : this.conversationId,
      output_modalities: [r.modality],
      max_output_tokens: r.maxOutputTokens,
      audio: { output: { format: clone(r.format), voice: clone(r.voice) } },
      usage: done
        ? {
            total_tokens: inputText + inputAudio + outputAudio + outputText,
            input_tokens: inputText + inputAudio,
            output_tokens: outputAudio + outputText,
            input_token_details: {
              text_tokens: inputText,
              audio_tokens: inputAudio,
              image_tokens: 0,
              cached_tokens: 0,
              cached_tokens_details: { text_tokens: 0, audio_tokens: 0, image_tokens: 0 },
            },
            output_token_details: { text_tokens: outputText, audio_tokens: outputAudio },
          }
        : null,
      metadata: r.metadata,
    };
  }
}
