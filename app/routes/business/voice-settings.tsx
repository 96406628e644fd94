import { Form } from "~/ui/link";
import { useEffect, useRef, useState } from "react";
import { data, useNavigation } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/voice-settings";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ownerForAction, ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { saveVoiceSettings } from "~/features/business/voice-api.server";
import { MAX_TEST_TEXT, speechLocales, VOICE_SPEED } from "~/features/business/voice-settings";
import { realtimeVoices, voiceName } from "~/lib/voices";
import { redirectWithToast } from "~/platform/http/toast.server";
import { isolateNumbers } from "~/ui/bidi";
import { Button } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { Field, SelectField, TextareaField } from "~/ui/form/field";
import { OwnerShell } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/**
 * /voice-settings (spec screen 14): the voice, speed and language of the business's
 * confirmation calls, with a sample read by the text-to-speech model ("Test voice"). The one
 * place the voice is chosen. No "creativity": the realtime model the calls use takes no
 * temperature, so the field changed nothing (the JSON API still accepts and stores it).
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const { business } = owner;
  return {
    kind: "owner" as const,
    title: ownerTitle(owner, owner.t("voiceSettings.title")),
    shell: owner.shell,
    settings: {
      voice: business.confirmationVoice,
      speed: business.voiceSpeed,
      locale: business.voiceLocale,
    },
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const owner = await ownerForAction(context, request);
  const form = Object.fromEntries(await request.formData());
  const saved = await saveVoiceSettings(context, owner.business.id, form);
  if (!saved.ok) return data({ fields: saved.fields, values: form as Record<string, string> }, { status: 400 });
  return redirectWithToast(owner.services, "/voice-settings", {
    type: "success",
    title: owner.t("voiceSettings.saved"),
    description: owner.t("voiceSettings.savedBody"),
  });
}

export default function VoiceSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/voice-settings" />;
  const fields = (actionData?.fields ?? {}) as Record<string, string[] | undefined>;
  const values = (actionData?.values ?? {}) as Record<string, string | undefined>;
  const settings = loaderData.settings;
  const value = (name: string, fallback: string | number) => values[name] ?? String(fallback);
  return (
    <OwnerShell shell={loaderData.shell} current="settings" here={false}>
      <PageTitle title={loaderData.title} error={Object.keys(fields).length > 0} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("voiceSettings.title")}</h1>
      <p className="mt-1 text-sm text-slate-700">{t("voiceSettings.intro")}</p>
      <Card className="mt-6">
        <Form method="post" id="voice-settings" className="space-y-5" noValidate>
          <AuthenticityTokenInput />
          <ErrorSummary
            problems={problemsOf([
              { id: "voice-voice", errors: fields.voice },
              { id: "voice-speed", errors: fields.speed },
              { id: "voice-language", errors: fields.language },
            ])}
          />
          <SelectField
            label={t("voiceSettings.voice")}
            id="voice-voice"
            name="voice"
            defaultValue={value("voice", settings.voice)}
            errors={fields.voice}
          >
            {realtimeVoices.map((voice) => (
              <option key={voice} value={voice}>
                {voiceName(voice)}
              </option>
            ))}
          </SelectField>
          <Field
            label={t("voiceSettings.speed")}
            id="voice-speed"
            name="speed"
            type="number"
            dir="ltr"
            inputMode="decimal"
            min={VOICE_SPEED.min}
            max={VOICE_SPEED.max}
            step={VOICE_SPEED.step}
            hint={isolateNumbers(t("voiceSettings.speedHint"))}
            defaultValue={value("speed", settings.speed)}
            errors={fields.speed}
          />
          <SelectField
            label={t("voiceSettings.language")}
            id="voice-language"
            name="language"
            defaultValue={value("language", settings.locale)}
            errors={fields.language}
          >
            {speechLocales.map((locale) => (
              <option key={locale} value={locale} lang={locale}>
                {t(`voiceSettings.locales.${locale}`)}
              </option>
            ))}
          </SelectField>
          <TestVoice />
          <Button type="submit" disabled={navigation.state !== "idle"}>
            {t("voiceSettings.save")}
          </Button>
        </Form>
      </Card>
    </OwnerShell>
  );
}

/**
 * "Test voice", inside the settings form so the sample uses the voice and speed chosen above. With
 * JavaScript the sample plays in the page ("Playing..." until it ends); without, the button posts
 * the form to the same address, which answers a browser with a page holding a player.
 */
function TestVoice() {
  const { t } = useTranslation();
  const [state, setState] = useState<"idle" | "playing" | "played" | "failed">("idle");
  const [error, setError] = useState<string | null>(null);
  const audioRef = useRef<HTMLAudioElement | null>(null);
  useEffect(() => () => audioRef.current?.pause(), []);
  async function play(form: HTMLFormElement) {
    const fields = new FormData(form);
    setState("playing");
    setError(null);
    try {
      const response = await fetch("/api/speech/synthesize", {
        method: "POST",
        // Not text/html: the address answers a browser's plain form post with a page instead.
        headers: { "Content-Type": "application/json", Accept: "audio/mpeg, application/json" },
        body: JSON.stringify({
          text: fields.get("text"),
          voice: fields.get("voice"),
          speed: Number(fields.get("speed")),
          language: fields.get("language"),
        }),
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { error?: string };
        throw new Error(body.error ?? t("voiceSettings.playFailedBody"));
      }
      const url = URL.createObjectURL(await response.blob());
      const audio = new Audio(url);
      audioRef.current = audio;
      const finish = (next: "played" | "failed") => () => {
        URL.revokeObjectURL(url);
        setState(next);
        if (next === "failed") setError(t("voiceSettings.playFailedBody"));
      };
      audio.onended = finish("played");
      audio.onerror = finish("failed");
      await audio.play();
    } catch (cause) {
      setState("failed");
      setError((cause as Error).message);
    }
  }
  return (
    <div className="space-y-3 rounded-lg border border-sand-200 bg-sand-50 p-4">
      <TextareaField
        label={t("voiceSettings.testText")}
        id="voice-test-text"
        name="text"
        rows={3}
        dir="auto"
        maxLength={MAX_TEST_TEXT}
        defaultValue={t("voiceSettings.testTextDefault")}
      />
      <Button
        type="submit"
        variant="secondary"
        formAction="/api/speech/synthesize"
        disabled={state === "playing"}
        onClick={(event) => {
          event.preventDefault();
          if (event.currentTarget.form) void play(event.currentTarget.form);
        }}
      >
        {state === "playing" ? t("voiceSettings.playing") : t("voiceSettings.testVoice")}
      </Button>
      <p role="status" className="min-h-5 text-sm text-slate-700">
        {state === "played" ? t("voiceSettings.played") : ""}
      </p>
      {error ? (
        <p role="alert" className="rounded-lg bg-rose-50 p-3 text-sm text-rose-800">
          <span className="font-semibold">{t("voiceSettings.playFailed")}: </span>
          {error}
        </p>
      ) : null}
    </div>
  );
}
