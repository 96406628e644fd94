import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "~/ui/translation";
import { useRevalidator } from "react-router";
import { Button } from "~/ui/form/button";
import { Icon } from "~/ui/icons";
import { useRootData } from "~/ui/shell/root-data";
import { useHydrated } from "~/ui/use-hydrated";
import { canStreamVoice, startLiveVoice, type LiveVoice, type LiveVoiceEnd } from "./live-voice";

/** Where a recording goes: POST multipart { csrf, token, audio } → { transcript, reply, audio, mimeType }. */
export const VOICE_TURN_URL = "/api/conversation/voice";

/** The spec's recording: opus in webm at 128 kbit/s, cleaned up by the browser, in 100 ms chunks. */
const RECORDING_TYPES = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4"];
const AUDIO_BITS_PER_SECOND = 128_000;
const CHUNK_MS = 100;
const MIC_CONSTRAINTS: MediaStreamConstraints = {
  audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
};

type Phase = "idle" | "recording" | "sending" | "speaking";

interface VoiceTurnResponse {
  transcript?: string;
  reply?: string;
  audio?: string | null;
  mimeType?: string | null;
  error?: string;
}

const canRecord = () =>
  typeof window !== "undefined" &&
  typeof window.MediaRecorder !== "undefined" &&
  typeof navigator.mediaDevices?.getUserMedia === "function";

function base64ToBlob(base64: string, type: string) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Blob([bytes], { type });
}

function extensionOf(type: string) {
  return type.includes("ogg")
    ? "ogg"
    : type.includes("mp4")
      ? "m4a"
      : type.includes("mpeg")
        ? "mp3"
        : type.includes("wav")
          ? "wav"
          : "webm";
}

/**
 * Voice mode of the browser conversation: a Voice/Text switch and, in voice, a microphone toggle.
 * With the realtime model (`live`), the microphone streams to the agent and its voice plays as it
 * speaks, interruptible like a phone call. Without it, or when the live voice fails, the spec's
 * recorded turns: a recording is sent when the caller stops ("record → speech to text → reply →
 * text to speech"). Either way the page is revalidated, so what was said appears in the
 * conversation like typed turns. With JavaScript only: the server's HTML (and the page before
 * hydration) shows `children`, the text form, alone.
 */
export function VoiceMode({ token, active, live, children }: { token: string; active: boolean; live: boolean; children: ReactNode }) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const root = useRootData();
  const revalidator = useRevalidator();
  const [mode, setMode] = useState<"text" | "voice">("text");
  const [phase, setPhase] = useState<Phase>("idle");
  const [problem, setProblem] = useState<string | null>(null);
  const [replyUrl, setReplyUrl] = useState<string | null>(null);
  const recorder = useRef<MediaRecorder | null>(null);
  const player = useRef<HTMLAudioElement>(null);
  const [liveFailed, setLiveFailed] = useState(false);
  const streaming = hydrated && live && !liveFailed && canStreamVoice();
  const supported = hydrated && (streaming || canRecord());
  const [livePhase, setLivePhase] = useState<"off" | "connecting" | "on">("off");
  const [muted, setMuted] = useState(false);
  const [agentSpeaking, setAgentSpeaking] = useState(false);
  const liveVoice = useRef<LiveVoice | null>(null);

  const stopLive = useCallback(() => {
    liveVoice.current?.stop();
    liveVoice.current = null;
    setLivePhase("off");
    setAgentSpeaking(false);
  }, []);
  // Leaving voice mode or the page (hanging up unmounts this) ends the live voice and frees the microphone.
  useEffect(() => stopLive, [stopLive]);

  async function startLive() {
    setProblem(null);
    setLivePhase("connecting");
    setMuted(false);
    const ended = (why: LiveVoiceEnd) => {
      liveVoice.current = null;
      setLivePhase("off");
      setAgentSpeaking(false);
      if (why === "unavailable") setLiveFailed(true);
      setProblem(
        why === "unavailable"
          ? t("agent.liveUnavailable")
          : why === "refused"
            ? t("agent.chatNotFound")
            : why === "busy"
              ? t("agent.liveBusy")
              : why === "failed"
                ? t("agent.liveLost")
                : null,
      );
      void revalidator.revalidate();
    };
    try {
      liveVoice.current = await startLiveVoice(Number(token.split(".")[0]), token, {
        onSpeaking: setAgentSpeaking,
        onTranscript: () => void revalidator.revalidate(),
        onEnd: ended,
      });
      setLivePhase("on");
    } catch (error) {
      setLivePhase("off");
      const name = (error as DOMException | undefined)?.name;
      setProblem(name === "NotAllowedError" || name === "SecurityError" ? t("agent.micDenied") : t("agent.noMicrophone"));
    }
  }

  function toggleMute() {
    const next = !muted;
    liveVoice.current?.setMuted(next);
    setMuted(next);
  }

  const stopMicrophone = useCallback(() => {
    const current = recorder.current;
    recorder.current = null;
    if (current && current.state !== "inactive") {
      current.onstop = null;
      current.stop();
    }
    current?.stream.getTracks().forEach((track) => track.stop());
  }, []);

  // Leaving the page (or hanging up, which unmounts this): the microphone is released, nothing sent.
  useEffect(() => stopMicrophone, [stopMicrophone]);
  useEffect(() => () => void (replyUrl && URL.revokeObjectURL(replyUrl)), [replyUrl]);

  const send = useCallback(
    async (recording: Blob) => {
      setPhase("sending");
      const form = new FormData();
      form.set("csrf", root?.csrfToken ?? "");
      form.set("token", token);
      form.set("audio", recording, `recording.${extensionOf(recording.type)}`);
      let body: VoiceTurnResponse = {};
      let ok = false;
      try {
        const response = await fetch(VOICE_TURN_URL, { method: "POST", body: form, headers: { Accept: "application/json" } });
        ok = response.ok;
        body = (await response.json().catch(() => ({}))) as VoiceTurnResponse;
      } catch {
        ok = false;
      }
      if (!ok) {
        setProblem(body.error ?? t("agent.processFailed"));
        setPhase("idle");
        return;
      }
      if (body.audio && body.mimeType && player.current) {
        const url = URL.createObjectURL(base64ToBlob(body.audio, body.mimeType));
        setReplyUrl(url);
        player.current.src = url;
        setPhase("speaking");
        // Played as the answer to the caller's own click; a browser that still refuses leaves the player's controls.
        player.current.play().catch(() => setPhase("idle"));
      } else {
        setPhase("idle");
      }
      await revalidator.revalidate();
    },
    [root?.csrfToken, token, t, revalidator],
  );

  async function startRecording() {
    setProblem(null);
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia(MIC_CONSTRAINTS);
    } catch (error) {
      const name = (error as DOMException | undefined)?.name;
      setProblem(name === "NotAllowedError" || name === "SecurityError" ? t("agent.micDenied") : t("agent.noMicrophone"));
      return;
    }
    const mimeType = RECORDING_TYPES.find((type) => MediaRecorder.isTypeSupported(type));
    let media: MediaRecorder;
    try {
      media = new MediaRecorder(stream, { ...(mimeType ? { mimeType } : {}), audioBitsPerSecond: AUDIO_BITS_PER_SECOND });
    } catch {
      stream.getTracks().forEach((track) => track.stop());
      setProblem(t("agent.noMicrophone"));
      return;
    }
    const chunks: Blob[] = [];
    media.ondataavailable = (event) => {
      if (event.data.size > 0) chunks.push(event.data);
    };
    media.onstop = () => {
      stream.getTracks().forEach((track) => track.stop());
      const recording = new Blob(chunks, { type: media.mimeType || mimeType || "audio/webm" });
      if (recording.size === 0) {
        setProblem(t("agent.audioMissing"));
        setPhase("idle");
        return;
      }
      void send(recording);
    };
    recorder.current = media;
    media.start(CHUNK_MS);
    player.current?.pause();
    setPhase("recording");
  }

  function stopRecording() {
    const media = recorder.current;
    recorder.current = null;
    if (media && media.state !== "inactive") {
      setPhase("sending");
      media.stop();
    }
  }

  if (!hydrated || !active) return <>{children}</>;

  const voice = mode === "voice" && supported;
  const status = streaming
    ? livePhase === "connecting"
      ? t("agent.liveConnecting")
      : livePhase === "on"
        ? agentSpeaking
          ? t("agent.speaking")
          : muted
            ? t("agent.micOff")
            : t("agent.liveListening")
        : voice
          ? t("agent.micOff")
          : ""
    : phase === "recording"
      ? `${t("agent.micOn")}. ${t("agent.recording")}`
      : phase === "sending"
        ? t("agent.typing")
        : phase === "speaking"
          ? t("agent.speaking")
          : voice
            ? t("agent.micOff")
            : "";
  return (
    <div className="space-y-3">
      <div role="group" aria-label={t("agent.mode")} className="flex flex-wrap gap-2">
        {(["voice", "text"] as const).map((choice) => (
          <Button
            key={choice}
            type="button"
            variant={mode === choice ? "primary" : "secondary"}
            aria-pressed={mode === choice}
            disabled={phase === "recording" || phase === "sending" || livePhase === "connecting"}
            aria-describedby={choice === "voice" && !supported ? "voice-unavailable" : undefined}
            onClick={() => {
              setProblem(null);
              if (choice === "text") stopLive();
              setMode(choice);
            }}
          >
            {choice === "voice" ? t("agent.voiceMode") : t("agent.textMode")}
          </Button>
        ))}
      </div>
      {!supported ? (
        <p id="voice-unavailable" className="text-sm text-slate-700">
          {t("agent.noMicrophone")}
        </p>
      ) : null}
      {voice && streaming ? (
        <div className="space-y-3">
          <p className="text-sm text-slate-700">{t("agent.liveHint")}</p>
          <Button
            type="button"
            variant={livePhase === "on" && !muted ? "danger" : "primary"}
            aria-pressed={livePhase === "on" && !muted}
            disabled={livePhase === "connecting"}
            onClick={() => (livePhase === "off" ? void startLive() : toggleMute())}
          >
            {livePhase === "on" && !muted ? <span aria-hidden="true" className="size-3 animate-pulse rounded-full bg-white" /> : null}
            <Icon name="mic" />
            {t("agent.mic")}
          </Button>
        </div>
      ) : voice ? (
        <div className="space-y-3">
          <p className="text-sm text-slate-700">{t("agent.voiceHint")}</p>
          <Button
            type="button"
            variant={phase === "recording" ? "danger" : "primary"}
            aria-pressed={phase === "recording"}
            disabled={phase === "sending"}
            onClick={() => (phase === "recording" ? stopRecording() : void startRecording())}
          >
            {phase === "recording" ? <span aria-hidden="true" className="size-3 animate-pulse rounded-full bg-white" /> : null}
            <Icon name="mic" />
            {t("agent.mic")}
          </Button>
        </div>
      ) : null}
      <p role="status" aria-live="polite" className="min-h-5 text-sm text-slate-700">
        {phase === "sending" || livePhase === "connecting" ? (
          <span
            aria-hidden="true"
            className="me-2 inline-block size-3 animate-spin rounded-full border-2 border-teal-700 border-t-transparent"
          />
        ) : null}
        {status}
      </p>
      {problem ? (
        <p role="alert" className="rounded-lg bg-rose-50 p-3 text-sm text-rose-950">
          {problem}
        </p>
      ) : null}
      {/* The reply's audio: played once; its controls let the caller hear it again. */}
      {/* eslint-disable-next-line jsx-a11y/media-has-caption -- its words are the agent's message in the conversation above */}
      <audio
        ref={player}
        controls
        hidden={!voice || !replyUrl}
        aria-label={t("agent.lastReply")}
        className="w-full"
        onEnded={() => setPhase((phase) => (phase === "speaking" ? "idle" : phase))}
        onPause={() => setPhase((phase) => (phase === "speaking" ? "idle" : phase))}
      />
      {voice ? null : children}
    </div>
  );
}
