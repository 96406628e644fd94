// Session configuration: a session.update validated and merged into the effective session, the
// defaults a new session starts with, and the validation of response.create parameters and of
// conversation items.
import { DEFAULT_INSTRUCTIONS, FORMAT_TYPES, MCP_TOOL_KEYS, RESPONSE_KEYS, SESSION_KEYS, VOICES } from "./constants";
import type { Obj } from "./types";
import {
  bool,
  checkKeys,
  clone,
  invalidType,
  invalidValue,
  isObj,
  join,
  missingParam,
  num,
  oneOf,
  RealtimeRequestError,
  reqObj,
  str,
} from "./validation";

function validateFormat(v: unknown, path: string): Obj {
  const f = reqObj(v, path);
  const type = oneOf(f.type, FORMAT_TYPES, join(path, "type"));
  if (type === "audio/pcm") {
    checkKeys(f, ["type", "rate"], path);
    if (f.rate !== undefined && f.rate !== 24000) throw invalidValue(join(path, "rate"), f.rate, [24000]);
    return { type, rate: 24000 };
  }
  checkKeys(f, ["type"], path);
  return { type };
}

function validateTurnDetection(v: unknown, path: string): Obj | null {
  if (v === null) return null;
  const t = reqObj(v, path);
  const type = oneOf(t.type, ["server_vad", "semantic_vad"], join(path, "type"));
  if (type === "semantic_vad") {
    checkKeys(t, ["type", "eagerness", "create_response", "interrupt_response"], path);
    return {
      type,
      eagerness: t.eagerness === undefined ? "auto" : oneOf(t.eagerness, ["low", "medium", "high", "auto"], join(path, "eagerness")),
      create_response: t.create_response === undefined ? true : bool(t.create_response, join(path, "create_response")),
      interrupt_response: t.interrupt_response === undefined ? true : bool(t.interrupt_response, join(path, "interrupt_response")),
    };
  }
  checkKeys(
    t,
    ["type", "threshold", "prefix_padding_ms", "silence_duration_ms", "idle_timeout_ms", "create_response", "interrupt_response"],
    path,
  );
  return {
    type,
    threshold: t.threshold === undefined ? 0.5 : num(t.threshold, join(path, "threshold"), 0, 1),
    prefix_padding_ms: t.prefix_padding_ms === undefined ? 300 : num(t.prefix_padding_ms, join(path, "prefix_padding_ms"), 0, 10000, true),
    silence_duration_ms:
      t.silence_duration_ms === undefined ? 500 : num(t.silence_duration_ms, join(path, "silence_duration_ms"), 0, 10000, true),
    idle_timeout_ms:
      t.idle_timeout_ms === undefined || t.idle_timeout_ms === null
        ? null
        : num(t.idle_timeout_ms, join(path, "idle_timeout_ms"), 5000, 30000, true),
    create_response: t.create_response === undefined ? true : bool(t.create_response, join(path, "create_response")),
    interrupt_response: t.interrupt_response === undefined ? true : bool(t.interrupt_response, join(path, "interrupt_response")),
  };
}

function validateTranscription(v: unknown, path: string): Obj | null {
  if (v === null) return null;
  const t = reqObj(v, path);
  checkKeys(t, ["model", "language", "prompt", "delay"], path);
  const out: Obj = {};
  if (t.model !== undefined) out.model = str(t.model, join(path, "model"));
  if (t.language !== undefined) out.language = str(t.language, join(path, "language"));
  if (t.prompt !== undefined) out.prompt = str(t.prompt, join(path, "prompt"));
  if (t.delay !== undefined) out.delay = oneOf(t.delay, ["minimal", "low", "medium", "high", "xhigh"], join(path, "delay"));
  return out;
}

function validateVoice(v: unknown, path: string): unknown {
  if (isObj(v)) {
    checkKeys(v, ["id"], path);
    return { id: str(v.id, join(path, "id")) };
  }
  return oneOf(v, VOICES, path);
}

function validateTools(v: unknown, path: string): Obj[] {
  if (!Array.isArray(v)) throw invalidType(path, "an array", v);
  return v.map((raw, i) => {
    const p = join(path, i);
    const tool = reqObj(raw, p);
    const type = oneOf(tool.type, ["function", "mcp"], join(p, "type"));
    if (type === "mcp") {
      checkKeys(tool, MCP_TOOL_KEYS, p);
      str(tool.server_label, join(p, "server_label"));
      return clone(tool);
    }
    checkKeys(tool, ["type", "name", "description", "parameters"], p);
    const name = str(tool.name, join(p, "name"));
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      throw invalidValue(join(p, "name"), name, undefined, "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.");
    const out: Obj = { type, name };
    if (tool.description !== undefined) out.description = str(tool.description, join(p, "description"));
    if (tool.parameters !== undefined) out.parameters = clone(reqObj(tool.parameters, join(p, "parameters")));
    return out;
  });
}

function validateToolChoice(v: unknown, path: string): unknown {
  if (typeof v === "string") return oneOf(v, ["none", "auto", "required"], path);
  const c = reqObj(v, path);
  const type = oneOf(c.type, ["function", "mcp"], join(path, "type"));
  if (type === "function") {
    checkKeys(c, ["type", "name"], path);
    return { type, name: str(c.name, join(path, "name")) };
  }
  checkKeys(c, ["type", "server_label", "name"], path);
  return clone(c);
}

function validateModalities(v: unknown, path: string): ("audio" | "text")[] {
  if (!Array.isArray(v)) throw invalidType(path, "an array", v);
  const values = v.map((m, i) => oneOf(m, ["text", "audio"] as const, join(path, i)));
  if (values.length !== 1)
    throw invalidValue(path, v, undefined, "Use either ['audio'] or ['text']; it is not possible to request both text and audio.");
  return values;
}

function validateMaxTokens(v: unknown, path: string): number | "inf" {
  if (v === "inf") return v;
  return num(v, path, 1, 4096, true);
}

/** Validates a session.update's `session` and returns the new effective session (or throws). */
export function nextSession(raw: unknown, current: Obj, audioProduced: boolean): Obj {
  const s = reqObj(raw, "session");
  if (s.type === undefined) throw missingParam("session.type");
  if (s.type === "transcription")
    throw new RealtimeRequestError(
      "invalid_value",
      "Cannot change the session type of a realtime session to 'transcription'.",
      "session.type",
    );
  if (s.type !== "realtime") throw invalidValue("session.type", s.type, ["realtime", "transcription"]);
  checkKeys(s, SESSION_KEYS, "session");
  const next = clone(current);
  if (s.model !== undefined && str(s.model, "session.model") !== current.model)
    throw invalidValue("session.model", s.model, undefined, "The model of a session cannot be changed.");
  if (s.instructions !== undefined) next.instructions = str(s.instructions, "session.instructions");
  if (s.output_modalities !== undefined) next.output_modalities = validateModalities(s.output_modalities, "session.output_modalities");
  if (s.max_output_tokens !== undefined) next.max_output_tokens = validateMaxTokens(s.max_output_tokens, "session.max_output_tokens");
  if (s.tools !== undefined) next.tools = validateTools(s.tools, "session.tools");
  if (s.tool_choice !== undefined) next.tool_choice = validateToolChoice(s.tool_choice, "session.tool_choice");
  if (s.parallel_tool_calls !== undefined) next.parallel_tool_calls = bool(s.parallel_tool_calls, "session.parallel_tool_calls");
  if (s.include !== undefined) {
    if (s.include !== null && !Array.isArray(s.include)) throw invalidType("session.include", "an array", s.include);
    (s.include ?? []).forEach((x: unknown, i: number) => oneOf(x, ["item.input_audio_transcription.logprobs"], join("session.include", i)));
    next.include = clone(s.include);
  }
  if (s.tracing !== undefined) {
    if (s.tracing !== null && s.tracing !== "auto" && !isObj(s.tracing)) throw invalidValue("session.tracing", s.tracing, ["auto"]);
    next.tracing = clone(s.tracing);
  }
  if (s.truncation !== undefined) {
    if (s.truncation !== "auto" && s.truncation !== "disabled" && !isObj(s.truncation))
      throw invalidValue("session.truncation", s.truncation, ["auto", "disabled"]);
    next.truncation = clone(s.truncation);
  }
  if (s.prompt !== undefined) {
    if (s.prompt !== null) reqObj(s.prompt, "session.prompt");
    next.prompt = clone(s.prompt);
  }
  if (s.reasoning !== undefined) {
    const r = reqObj(s.reasoning, "session.reasoning");
    checkKeys(r, ["effort"], "session.reasoning");
    if (r.effort !== undefined) oneOf(r.effort, ["minimal", "low", "medium", "high", "xhigh"], "session.reasoning.effort");
    next.reasoning = clone(r);
  }
  if (s.audio !== undefined) {
    const a = reqObj(s.audio, "session.audio");
    checkKeys(a, ["input", "output"], "session.audio");
    if (a.input !== undefined) {
      const p = "session.audio.input";
      const i = reqObj(a.input, p);
      checkKeys(i, ["format", "noise_reduction", "transcription", "turn_detection"], p);
      if (i.format !== undefined) next.audio.input.format = validateFormat(i.format, `${p}.format`);
      if (i.noise_reduction !== undefined) {
        if (i.noise_reduction === null) next.audio.input.noise_reduction = null;
        else {
          const n = reqObj(i.noise_reduction, `${p}.noise_reduction`);
          checkKeys(n, ["type"], `${p}.noise_reduction`);
          next.audio.input.noise_reduction = { type: oneOf(n.type, ["near_field", "far_field"], `${p}.noise_reduction.type`) };
        }
      }
      if (i.transcription !== undefined) next.audio.input.transcription = validateTranscription(i.transcription, `${p}.transcription`);
      if (i.turn_detection !== undefined) next.audio.input.turn_detection = validateTurnDetection(i.turn_detection, `${p}.turn_detection`);
    }
    if (a.output !== undefined) {
      const p = "session.audio.output";
      const o = reqObj(a.output, p);
      checkKeys(o, ["format", "speed", "voice"], p);
      if (o.format !== undefined) next.audio.output.format = validateFormat(o.format, `${p}.format`);
      if (o.speed !== undefined) next.audio.output.speed = num(o.speed, `${p}.speed`, 0.25, 1.5);
      if (o.voice !== undefined) {
        const voice = validateVoice(o.voice, `${p}.voice`);
        if (audioProduced && JSON.stringify(voice) !== JSON.stringify(current.audio.output.voice))
          throw new RealtimeRequestError(
            "cannot_update_voice",
            "Cannot update a conversation's voice if assistant audio is present.",
            `${p}.voice`,
          );
        next.audio.output.voice = voice;
      }
    }
  }
  return next;
}

export function validateResponseParams(v: unknown): Obj {
  const r = reqObj(v, "response");
  checkKeys(r, RESPONSE_KEYS, "response");
  if (r.instructions !== undefined) str(r.instructions, "response.instructions");
  if (r.output_modalities !== undefined) validateModalities(r.output_modalities, "response.output_modalities");
  if (r.max_output_tokens !== undefined) validateMaxTokens(r.max_output_tokens, "response.max_output_tokens");
  if (r.tools !== undefined) validateTools(r.tools, "response.tools");
  if (r.tool_choice !== undefined) validateToolChoice(r.tool_choice, "response.tool_choice");
  if (r.conversation !== undefined) str(r.conversation, "response.conversation");
  if (r.input !== undefined && !Array.isArray(r.input)) throw invalidType("response.input", "an array", r.input);
  if (r.metadata !== undefined && r.metadata !== null) reqObj(r.metadata, "response.metadata");
  if (r.audio !== undefined) {
    const a = reqObj(r.audio, "response.audio");
    checkKeys(a, ["output"], "response.audio");
    if (a.output !== undefined) {
      const o = reqObj(a.output, "response.audio.output");
      checkKeys(o, ["format", "voice"], "response.audio.output");
      if (o.format !== undefined) validateFormat(o.format, "response.audio.output.format");
      if (o.voice !== undefined) validateVoice(o.voice, "response.audio.output.voice");
    }
  }
  return clone(r);
}

export function validateItem(v: unknown, conversation: Obj[]): Obj {
  const item = reqObj(v, "item");
  const type = oneOf(item.type, ["message", "function_call", "function_call_output"], "item.type");
  if (item.id !== undefined) {
    str(item.id, "item.id");
    if (conversation.some((i) => i.id === item.id))
      throw new RealtimeRequestError("invalid_value", `Item with id '${item.id}' already exists in the conversation.`, "item.id");
  }
  if (item.object !== undefined) oneOf(item.object, ["realtime.item"], "item.object");
  if (item.status !== undefined) oneOf(item.status, ["completed", "incomplete", "in_progress"], "item.status");
  const common = ["id", "object", "status", "type"];
  if (type === "message") {
    checkKeys(item, [...common, "role", "content"], "item");
    const role = oneOf(item.role, ["user", "assistant", "system"], "item.role");
    if (!Array.isArray(item.content))
      throw item.content === undefined ? missingParam("item.content") : invalidType("item.content", "an array", item.content);
    const allowed = {
      user: ["input_text", "input_audio", "input_image"],
      system: ["input_text"],
      assistant: ["output_text", "output_audio"],
    }[role];
    item.content.forEach((part: unknown, i: number) => {
      const p = join("item.content", i);
      const c = reqObj(part, p);
      checkKeys(c, ["type", "text", "audio", "transcript", "image_url", "detail"], p);
      oneOf(c.type, allowed, join(p, "type"));
      if (c.text !== undefined) str(c.text, join(p, "text"));
    });
  } else if (type === "function_call") {
    checkKeys(item, [...common, "name", "arguments", "call_id"], "item");
    str(item.name, "item.name");
    str(item.arguments, "item.arguments");
    if (item.call_id !== undefined) str(item.call_id, "item.call_id");
  } else {
    checkKeys(item, [...common, "call_id", "output"], "item");
    const callId = str(item.call_id, "item.call_id");
    str(item.output, "item.output");
    if (!conversation.some((i) => i.type === "function_call" && i.call_id === callId))
      throw new RealtimeRequestError(
        "invalid_value",
        `Invalid 'item.call_id': no function_call with call_id '${callId}' in the conversation.`,
        "item.call_id",
      );
  }
  return clone(item);
}

export function defaultSession(id: string, model: string): Obj {
  return {
    type: "realtime",
    object: "realtime.session",
    id,
    model,
    output_modalities: ["audio"],
    instructions: DEFAULT_INSTRUCTIONS,
    tools: [],
    tool_choice: "auto",
    max_output_tokens: "inf",
    tracing: null,
    truncation: "auto",
    prompt: null,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    audio: {
      input: {
        format: { type: "audio/pcm", rate: 24000 },
        transcription: null,
        noise_reduction: null,
        turn_detection: validateTurnDetection({ type: "server_vad" }, ""),
      },
      output: { format: { type: "audio/pcm", rate: 24000 }, voice: "marin", speed: 1 },
    },
    include: null,
  };
}
