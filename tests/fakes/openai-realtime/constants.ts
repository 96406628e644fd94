// The fake's constants: the default reply, caller transcript and instructions, the audio chunk
// length, the voices and formats it knows, and the parameter names each client event, session,
// response and MCP tool may carry.

export const DEFAULT_REPLY = "Okay.";
export const DEFAULT_CALLER_TRANSCRIPT = "(unscripted caller speech)";
export const DEFAULT_INSTRUCTIONS =
  "Your knowledge cutoff is 2023-10. You are a helpful, witty, and friendly AI. Act like a human, but remember that you aren't a human and that you can't do human things in the real world. Your voice and personality should be warm and engaging, with a lively and playful tone.";

export const CHUNK_MS = 20;
export const VOICES = ["alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse", "marin", "cedar"];
export const FORMAT_TYPES = ["audio/pcm", "audio/pcmu", "audio/pcma"];
export const CLIENT_EVENT_KEYS: Record<string, readonly string[]> = {
  "session.update": ["type", "event_id", "session"],
  "input_audio_buffer.append": ["type", "event_id", "audio"],
  "input_audio_buffer.commit": ["type", "event_id"],
  "input_audio_buffer.clear": ["type", "event_id"],
  "conversation.item.create": ["type", "event_id", "item", "previous_item_id"],
  "conversation.item.truncate": ["type", "event_id", "item_id", "content_index", "audio_end_ms"],
  "conversation.item.delete": ["type", "event_id", "item_id"],
  "conversation.item.retrieve": ["type", "event_id", "item_id"],
  "response.create": ["type", "event_id", "response"],
  "response.cancel": ["type", "event_id", "response_id"],
  "output_audio_buffer.clear": ["type", "event_id"],
};
export const SESSION_KEYS = [
  "type",
  "audio",
  "include",
  "instructions",
  "max_output_tokens",
  "model",
  "output_modalities",
  "parallel_tool_calls",
  "prompt",
  "reasoning",
  "tool_choice",
  "tools",
  "tracing",
  "truncation",
];
export const RESPONSE_KEYS = [
  "audio",
  "conversation",
  "input",
  "instructions",
  "max_output_tokens",
  "metadata",
  "output_modalities",
  "parallel_tool_calls",
  "prompt",
  "reasoning",
  "tool_choice",
  "tools",
];
export const MCP_TOOL_KEYS = [
  "type",
  "server_label",
  "allowed_callers",
  "allowed_tools",
  "authorization",
  "connector_id",
  "defer_loading",
  "headers",
  "require_approval",
  "server_description",
  "server_url",
  "tunnel_id",
];
