import { data } from "react-router";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/synthesize";
import { ownerForAction, ownerTitle } from "~/features/business/owner.server";
import { voiceOwner, voiceSample } from "~/features/business/voice-api.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { getT } from "~/platform/i18n.server";
import { linkClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { PageTitle } from "~/ui/form/error-summary";
import { OwnerShell } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

/**
 * POST /api/speech/synthesize { text, voice, speed, language } → audio/mpeg: the voice sample of
 * the settings page, for the signed-in owner. Two audiences at one address, told apart by what
 * they accept: the page's script and API callers get the audio (or a JSON error), as always; the
 * settings form posted by a browser without JavaScript (Accept: text/html) gets a page in the
 * owner's frame with a player and the way back, never raw audio or JSON.
 */
function wantsPage(request: Request) {
  const type = request.headers.get("Content-Type") ?? "";
  const accept = request.headers.get("Accept") ?? "";
  return !type.includes("application/json") && accept.includes("text/html");
}

async function audioAnswer({ request, context }: { request: Request; context: Route.ActionArgs["context"] }) {
  const t = getT(context);
  const business = await voiceOwner(context, request);
  if (!business) return apiError(401, t("voiceSettings.signIn"));
  const json = (request.headers.get("Content-Type") ?? "").includes("application/json");
  const input = json ? await readJsonBody(request) : Object.fromEntries(await request.formData());
  const sample = await voiceSample(context, business.id, input);
  if (!sample.ok) return apiError(sample.status, sample.message, { title: sample.title });
  return new Response(Buffer.from(sample.audio), {
    headers: { "Content-Type": sample.mimeType, "Cache-Control": "private, no-store", "Content-Length": String(sample.audio.byteLength) },
  });
}

/** A JSON error made by `data()` as the plain JSON response a resource route would have sent. */
function asResponse(answer: unknown): Response {
  if (answer instanceof Response) return answer;
  const { data: body, init } = answer as { data: unknown; init?: ResponseInit | null };
  return Response.json(body, init ?? undefined);
}

function dataOrRethrow(thrown: unknown) {
  if (thrown instanceof Response || (thrown && typeof thrown === "object" && "data" in thrown && "init" in thrown)) return thrown;
  throw thrown;
}

/** Everything but a browser's form post is answered here, before any page is drawn (the root's CSRF check has run). */
export const middleware: Route.MiddlewareFunction[] = [
  async ({ request, context }, next) => {
    if (request.method !== "POST") return asResponse(methodNotAllowed());
    if (!wantsPage(request)) return asResponse(await audioAnswer({ request, context }).catch(dataOrRethrow));
    return next();
  },
];

export const handle: ShellHandle = { shell: "owner", hydrate: false };

/** The form post of a browser without JavaScript: the sample as a page, its audio inline. */
export async function action({ request, context }: Route.ActionArgs) {
  const owner = await ownerForAction(context, request);
  const input = Object.fromEntries(await request.formData());
  const sample = await voiceSample(context, owner.business.id, input);
  const page = { title: ownerTitle(owner, owner.t("voiceSettings.sampleTitle")), shell: owner.shell };
  if (!sample.ok) return data({ ...page, audio: null, error: sample.message }, { status: sample.status });
  // A data: URL: the sample lives only in this answer, so nothing is stored and no other URL can fetch it.
  const audio = `data:${sample.mimeType};base64,${Buffer.from(sample.audio).toString("base64")}`;
  return { ...page, audio, text: String(input.text ?? "").trim(), error: null };
}

export default function VoiceSample({ actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (!actionData) return null;
  return (
    <OwnerShell shell={actionData.shell} current="settings" here={false}>
      <PageTitle title={actionData.title} error={Boolean(actionData.error)} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("voiceSettings.sampleTitle")}</h1>
      <Card className="mt-6 max-w-2xl space-y-4">
        {actionData.audio ? (
          <>
            <p className="text-sm text-slate-700">{t("voiceSettings.sampleIntro")}</p>
            {/* The words read are written under the player: they are its transcript, so no caption track. */}
            {/* eslint-disable-next-line jsx-a11y/media-has-caption */}
            <audio controls src={actionData.audio} aria-label={t("voiceSettings.sampleLabel")} className="w-full" />
            <blockquote dir="auto" className="border-s-4 border-sand-200 ps-3 text-slate-800">
              {actionData.text}
            </blockquote>
          </>
        ) : (
          <p role="alert" className="rounded-lg bg-rose-50 p-3 text-sm text-rose-800">
            <span className="font-semibold">{t("voiceSettings.playFailed")}: </span>
            {actionData.error}
          </p>
        )}
        <p>
          <Link to="/voice-settings" className={linkClass}>
            {t("voiceSettings.sampleBack")}
          </Link>
        </p>
      </Card>
    </OwnerShell>
  );
}
