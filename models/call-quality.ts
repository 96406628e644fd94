import { eq, sql } from "drizzle-orm";
import type { Db } from "./db";
import { callQuality, type CallEnding, type QualityTurn, type ToolRefusal } from "./schema";

export type CallQualityRow = typeof callQuality.$inferSelect;

/** What the bridge measured on one call's audio (ADR 0033). */
export interface QualityReport {
  streamStartedAt: Date;
  firstAudioAt: Date | null;
  /** Milliseconds after the stream's start. */
  turns: QualityTurn[];
  interruptions: number[];
  endedAt: Date;
  endedBy: CallEnding;
  toolRefusals: ToolRefusal[];
}

/** First words: from the answer, or from the stream's start when no answer was seen (never below 0). */
const firstWordsMs = sql`greatest(0, round(extract(epoch from (excluded.first_audio_at - coalesce(${callQuality.answeredAt}, excluded.stream_started_at))) * 1000))::int`;

/** The caller answered (Twilio asks for the call's TwiML): the first answer is kept. */
export async function recordAnswer(db: Db, callId: number, at = new Date()) {
  await db.insert(callQuality).values({ callId, answeredAt: at }).onConflictDoNothing();
}

/** The agent's first audio went out: kept at once, so a crash later loses little. */
export async function recordFirstWords(db: Db, callId: number, streamStartedAt: Date, firstAudioAt: Date) {
  await db
    .insert(callQuality)
    .values({ callId, streamStartedAt, firstAudioAt, firstWordsMs: firstAudioAt.getTime() - streamStartedAt.getTime() })
    .onConflictDoUpdate({
      target: callQuality.callId,
      set: { streamStartedAt, firstAudioAt, firstWordsMs, updatedAt: sql`now()` },
    });
}

/** The call's audio ended: everything the bridge measured, in one write. */
export async function recordCallEnd(db: Db, callId: number, report: QualityReport) {
  const { streamStartedAt, firstAudioAt, turns, interruptions, endedAt, endedBy, toolRefusals } = report;
  await db
    .insert(callQuality)
    .values({
      callId,
      streamStartedAt,
      firstAudioAt,
      firstWordsMs: firstAudioAt ? firstAudioAt.getTime() - streamStartedAt.getTime() : null,
      turns,
      interruptions,
      endedAt,
      endedBy,
      toolRefusals,
    })
    .onConflictDoUpdate({
      target: callQuality.callId,
      set: {
        streamStartedAt,
        firstAudioAt,
        firstWordsMs: firstAudioAt ? firstWordsMs : null,
        turns,
        interruptions,
        endedAt,
        endedBy,
        toolRefusals,
        updatedAt: sql`now()`,
      },
    });
}

export async function findCallQuality(db: Db, callId: number) {
  const [row] = await db.select().from(callQuality).where(eq(callQuality.callId, callId));
  return row ?? null;
}

/** One day's figures: how many calls were measured and the median and 90th percentile, in ms (null: none that day). */
export interface QualityDay {
  day: string;
  calls: number;
  firstWordsMedian: number | null;
  firstWordsP90: number | null;
  turns: number;
  turnMedian: number | null;
  turnP90: number | null;
}

/**
 * Per local day (`timeZone`) of the answer in [from, to): the median and 90th percentile of the
 * first words and of the turn latencies (turns the agent never answered left out), for one
 * business or (businessId null) every call.
 */
export async function qualityByDay(db: Db, options: { businessId: number | null; timeZone: string; from: Date; to: Date }) {
  const { businessId, timeZone, from, to } = options;
  const scope = businessId === null ? sql`true` : sql`c.business_id = ${businessId}`;
  const result = (await db.execute(sql`
    with q as (
      select q.call_id, q.first_words_ms, q.turns,
             (coalesce(q.answered_at, q.stream_started_at) at time zone ${timeZone})::date as day
      from call_quality q join calls c on c.id = q.call_id
      where ${scope}
        and coalesce(q.answered_at, q.stream_started_at) >= ${from.toISOString()}::timestamptz
        and coalesce(q.answered_at, q.stream_started_at) < ${to.toISOString()}::timestamptz
    ),
    first_words as (
      select day, count(first_words_ms)::int as calls,
             percentile_cont(0.5) within group (order by first_words_ms) as median,
             percentile_cont(0.9) within group (order by first_words_ms) as p90
      from q group by day
    ),
    turns as (
      select q.day, count(*)::int as turns,
             percentile_cont(0.5) within group (order by (t->>'latencyMs')::int) as median,
             percentile_cont(0.9) within group (order by (t->>'latencyMs')::int) as p90
      from q cross join lateral jsonb_array_elements(q.turns) t
      where t->>'latencyMs' is not null
      group by q.day
    )
    select to_char(d.day, 'YYYY-MM-DD') as day, coalesce(f.calls, 0) as calls, f.median as fw_median, f.p90 as fw_p90,
           coalesce(t.turns, 0) as turns, t.median as turn_median, t.p90 as turn_p90
    from (select distinct day from q) d
    left join first_words f on f.day = d.day
    left join turns t on t.day = d.day
    order by d.day`)) as unknown as { rows: Record<string, unknown>[] };
  const ms = (value: unknown) => (value === null || value === undefined ? null : Math.round(Number(value)));
  return result.rows.map((row): QualityDay => ({
    day: String(row.day),
    calls: Number(row.calls),
    firstWordsMedian: ms(row.fw_median),
    firstWordsP90: ms(row.fw_p90),
    turns: Number(row.turns),
    turnMedian: ms(row.turn_median),
    turnP90: ms(row.turn_p90),
  }));
}
