// One connection, part 1: its state, sending server events (type-checked against the SDK), and the
// conversation items (create, delete, truncate). ResponsesConnection and Connection build on it.
import WebSocket from "ws";
import { validateItem } from "./session";
import type { OutgoingEvent, ResponseRun, Shared } from "./state";
import type { Obj, RealtimeSessionRecord } from "./types";
import { clone, invalidValue, newId, num, RealtimeRequestError, str } from "./validation";

export class ConnectionBase {
  closed = false;
  /** A stalled session (stall()): the socket stays open, and nothing more is sent or answered. */
  stalled = false;
  protected readonly conversationId = newId("conv");
  protected audioProduced = false;
  protected active: ResponseRun | null = null;
  protected readonly running = new Set<ResponseRun>();
  protected echo: ResponseRun | null = null;
  protected echoSeq = 0;
  protected readonly vad = { speaking: false, silenceMs: 0, itemId: "" };
  protected pending: Buffer = Buffer.alloc(0);
  protected inputMs = 0;
  protected bufferMs = 0;
  protected userAudioMs = 0;
  protected readonly itemAudioMs = new Map<string, number>();
  /** Responses whose output waits for release(). */
  protected readonly held = new Set<ResponseRun>();
  lastAppend: Obj | null = null;

  constructor(
    protected readonly shared: Shared,
    protected readonly ws: WebSocket,
    readonly record: RealtimeSessionRecord,
  ) {}

  /**
   * The session hangs with its socket open, as a stalled real session does: it sends nothing more
   * (no audio, no VAD events, no errors) and answers nothing; a response under way goes silent.
   */
  stall(): void {
    this.stalled = true;
  }

  // --- sending ---------------------------------------------------------------------------------

  /** Sends a server event, type-checked against the SDK's RealtimeServerEvent union. */
  send(event: OutgoingEvent): void {
    this.sendRaw(event);
  }

  sendRaw(event: Obj): void {
    if (this.closed || this.stalled || this.ws.readyState !== WebSocket.OPEN) return;
    const { type, ...rest } = event as Obj;
    const full: Obj = { type, event_id: newId("event"), ...rest };
    this.ws.send(JSON.stringify(full));
    let stored = full;
    if (type === "response.output_audio.delta") {
      const { delta, ...meta } = full;
      stored = { ...meta, delta_bytes: Buffer.byteLength(delta as string, "base64") };
    }
    this.record.serverEvents.push(stored);
    if (type === "error") this.record.errors.push(stored);
    this.shared.emitter.emit("server", this.record.index, stored);
  }

  protected sendError(e: RealtimeRequestError, clientEventId: string | null): void {
    this.send({
      type: "error",
      error: { type: "invalid_request_error", code: e.code, message: e.message, param: e.param, event_id: clientEventId },
    });
  }

  // --- conversation items ------------------------------------------------------------------------

  protected lastItemId(): string | null {
    return this.record.conversation.at(-1)?.id ?? null;
  }

  protected findItem(id: string, code: string): Obj {
    const item = this.record.conversation.find((i) => i.id === id);
    if (!item) throw new RealtimeRequestError(code, `Item with item_id not found: ${id}`, "item_id");
    return item;
  }

  protected itemCreate(event: Obj): void {
    const item = validateItem(event.item, this.record.conversation);
    item.id ??= newId("item");
    item.object = "realtime.item";
    item.status ??= "completed";
    let index = this.record.conversation.length;
    if (event.previous_item_id !== undefined) {
      const prev = str(event.previous_item_id, "previous_item_id");
      if (prev === "root") index = 0;
      else {
        const at = this.record.conversation.findIndex((i) => i.id === prev);
        if (at < 0)
          throw new RealtimeRequestError(
            "invalid_value",
            `Previous item with id '${prev}' not found in the conversation.`,
            "previous_item_id",
          );
        index = at + 1;
      }
    }
    const previous = index === 0 ? null : (this.record.conversation[index - 1]?.id ?? null);
    this.record.conversation.splice(index, 0, item);
    if (item.type === "function_call_output") {
      const call = this.record.conversation.find((i) => i.type === "function_call" && i.call_id === item.call_id);
      this.record.functionOutputs.push({ call_id: item.call_id, output: item.output, item_id: item.id, name: call?.name ?? null });
    }
    this.send({ type: "conversation.item.added", item: clone(item) as any, previous_item_id: previous });
    this.send({ type: "conversation.item.done", item: clone(item) as any, previous_item_id: previous });
  }

  protected itemDelete(event: Obj): void {
    const item = this.findItem(str(event.item_id, "item_id"), "item_delete_invalid_item_id");
    this.record.conversation.splice(this.record.conversation.indexOf(item), 1);
    this.send({ type: "conversation.item.deleted", item_id: item.id });
  }

  protected truncate(event: Obj): void {
    const itemId = str(event.item_id, "item_id");
    const contentIndex = num(event.content_index, "content_index", 0, Number.MAX_SAFE_INTEGER, true);
    const audioEndMs = num(event.audio_end_ms, "audio_end_ms", 0, Number.MAX_SAFE_INTEGER, true);
    const item = this.findItem(itemId, "item_truncate_invalid_item_id");
    if (item.type !== "message" || item.role !== "assistant" || !this.itemAudioMs.has(itemId))
      throw new RealtimeRequestError("item_truncate_invalid_item_id", "Only model output audio messages can be truncated", "item_id");
    if (contentIndex !== 0)
      throw invalidValue("content_index", contentIndex, undefined, "The item has a single audio content part, at index 0.");
    const audioMs = this.itemAudioMs.get(itemId) ?? 0;
    if (audioEndMs > audioMs)
      throw new RealtimeRequestError(
        "invalid_value",
        `Audio content of ${audioMs}ms is already shorter than ${audioEndMs}ms`,
        "audio_end_ms",
      );
    this.record.truncations.push({ item_id: itemId, content_index: contentIndex, audio_end_ms: audioEndMs, audio_ms: audioMs });
    this.itemAudioMs.set(itemId, audioEndMs);
    // Like the API: the server-side transcript goes, so no text the caller did not hear stays in context.
    for (const part of item.content ?? []) if (part.type === "output_audio") part.transcript = null;
    this.send({ type: "conversation.item.truncated", item_id: itemId, content_index: contentIndex, audio_end_ms: audioEndMs });
  }
}
