import { data } from "react-router";
import type { TFunction } from "i18next";
import { findCallQuality, type CallQualityRow } from "#models/call-quality";
import { findCall } from "#models/calls";
import { textDirection } from "~/i18n";
import { formatWhen } from "~/lib/when";
import { callOutcomeLabel, callPartyNumber } from "./call-centre.server";
import type { Owner } from "./owner.server";

/** One call's quality as the page draws it (ADR 0033): times in ms after the answer, every text worded. */
export interface QualityTimeline {
  dir: "ltr" | "rtl";
  /** The axis runs from the answer to this. */
  spanMs: number;
  firstWordsMs: number | null;
  turns: { at: number; latencyMs: number | null }[];
  interruptions: number[];
  endMs: number | null;
  ticks: { ms: number; label: string }[];
  text: {
    title: string;
    desc: string;
    axis: string;
    laneAnswer: string;
    laneTurns: string;
    laneInterruptions: string;
    caption: string;
    moment: string;
    at: string;
    wait: string;
  };
  rows: { key: string; moment: string; at: string; wait: string }[];
}

/** A round step for the axis's ticks: about five of them whatever the call's length. */
function tickStep(spanMs: number) {
  const steps = [500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000];
  return steps.find((step) => spanMs / step <= 6) ?? 600_000;
}

/** The timeline of one call's quality row, in the reader's language; null when the call's audio never connected. */
export function qualityTimeline(row: CallQualityRow | null, t: TFunction, locale: string): QualityTimeline | null {
  if (!row?.streamStartedAt) return null;
  const answer = (row.answeredAt ?? row.streamStartedAt).getTime();
  // The bridge's times count from the stream's start, which came this long after the answer.
  const shift = Math.max(0, row.streamStartedAt.getTime() - answer);
  const firstWordsMs = row.firstWordsMs;
  const turns = row.turns.map((turn) => ({ at: turn.at + shift, latencyMs: turn.latencyMs }));
  const interruptions = row.interruptions.map((at) => at + shift);
  const endMs = row.endedAt ? Math.max(0, row.endedAt.getTime() - answer) : null;
  const lastMoment = Math.max(firstWordsMs ?? 0, endMs ?? 0, ...turns.map((turn) => turn.at + (turn.latencyMs ?? 0)), ...interruptions);
  const spanMs = Math.max(1000, lastMoment);
  const step = tickStep(spanMs);
  const seconds = new Intl.NumberFormat(locale, { style: "unit", unit: "second", unitDisplay: "short", maximumFractionDigits: 1 });
  const ms = new Intl.NumberFormat(locale, { style: "unit", unit: "millisecond", unitDisplay: "short" });
  const ticks = Array.from({ length: Math.floor(spanMs / step) + 1 }, (_, i) => ({
    ms: i * step,
    label: seconds.format((i * step) / 1000),
  }));
  const at = (value: number) => seconds.format(value / 1000);
  const ending = row.endedBy ? t(`quality.endings.${row.endedBy}`) : null;

  const rows: QualityTimeline["rows"] = [{ key: "answer", moment: t("quality.answered"), at: at(0), wait: "" }];
  rows.push(
    firstWordsMs === null
      ? { key: "first", moment: t("quality.firstWords"), at: "", wait: t("quality.notHeard") }
      : { key: "first", moment: t("quality.firstWords"), at: at(firstWordsMs), wait: ms.format(firstWordsMs) },
  );
  const moments = [
    ...turns.map((turn, i) => ({
      time: turn.at,
      row: {
        key: `turn-${i}`,
        moment: t("quality.turn", { n: i + 1 }),
        at: at(turn.at),
        wait: turn.latencyMs === null ? t("quality.noReply") : ms.format(turn.latencyMs),
      },
    })),
    ...interruptions.map((time, i) => ({
      time,
      row: { key: `interruption-${i}`, moment: t("quality.interruption"), at: at(time), wait: "" },
    })),
  ].sort((a, b) => a.time - b.time);
  rows.push(...moments.map((m) => m.row));
  if (endMs !== null && ending) rows.push({ key: "end", moment: t("quality.end", { how: ending }), at: at(endMs), wait: "" });

  return {
    dir: textDirection(locale),
    spanMs,
    firstWordsMs,
    turns,
    interruptions,
    endMs,
    ticks,
    text: {
      title: t("quality.svgTitle"),
      desc: t("quality.svgDesc", {
        firstWords: firstWordsMs === null ? "–" : ms.format(firstWordsMs),
        turns: turns.length,
        interruptions: interruptions.length,
        ended: ending ?? "–",
      }),
      axis: t("quality.axis"),
      laneAnswer: t("quality.laneAnswer"),
      laneTurns: t("quality.laneTurns"),
      laneInterruptions: t("quality.laneInterruptions"),
      caption: t("quality.tableCaption"),
      moment: t("quality.moment"),
      at: t("quality.at"),
      wait: t("quality.wait"),
    },
    rows,
  };
}

/** One call of the owner's business, with its quality; any other call is 404. */
export async function loadCallPage(owner: Owner, callId: number | null) {
  const { services, t, locale, business } = owner;
  const call = callId ? await findCall(services.db, callId) : null;
  if (!call || call.businessId !== business.id) throw data(null, { status: 404 });
  const quality = await findCallQuality(services.db, call.id);
  const seconds = new Intl.NumberFormat(locale, { style: "unit", unit: "second", unitDisplay: "short" });
  return {
    call: {
      id: call.id,
      when: formatWhen(call.createdAt, business.timeZone, locale),
      purpose: t(`owner.callPurpose.${call.purpose}`),
      status: t(`owner.callStatus.${call.status}`),
      to: callPartyNumber(call),
      duration: call.durationSeconds !== null ? seconds.format(call.durationSeconds) : null,
      outcome: callOutcomeLabel(t, call),
      summary: call.summary,
    },
    timeline: qualityTimeline(quality, t, locale),
  };
}
