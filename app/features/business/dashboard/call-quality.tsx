import type { QualityTimeline } from "~/features/business/call-quality.server";

// Narrow enough that its words stay legible when a phone shrinks it to the screen's width.
const WIDTH = 500;
const HEIGHT = 168;
/** The lanes' names sit on the start side, in this much room. */
const LABELS = 104;
const PAD = 14;
const LANE_ANSWER = 28;
const LANE_TURNS = 62;
const LANE_INTERRUPTIONS = 96;
const AXIS = 120;
const BAR = 16;

/**
 * One call's quality as a timeline drawn on the server (no JavaScript): the answer and the wait
 * for the first words, each turn's wait as a bar (from the caller's last word to the agent's
 * first), interruptions as marks, and the end. Time runs in the reading direction (right to left
 * in Arabic) and the axis says so; the table beside it holds every figure, for everyone.
 */
export function QualityTimelineView({ timeline }: { timeline: QualityTimeline }) {
  const rtl = timeline.dir === "rtl";
  const plotStart = rtl ? PAD : LABELS + PAD;
  const plotEnd = rtl ? WIDTH - LABELS - PAD : WIDTH - PAD;
  const scale = (plotEnd - plotStart) / timeline.spanMs;
  /** The x of a moment, `ms` after the answer, in the reading direction. */
  const x = (ms: number) => (rtl ? plotEnd - ms * scale : plotStart + ms * scale);
  const span = (from: number, to: number) => {
    const [a, b] = [x(from), x(to)];
    return { x: Math.min(a, b), width: Math.max(2, Math.abs(b - a)) };
  };
  const labelX = rtl ? WIDTH - PAD / 2 : PAD / 2;
  const labelAnchor = rtl ? "end" : "start";
  const { text } = timeline;
  const lastTurnEnd = timeline.endMs ?? timeline.spanMs;
  return (
    <div className="mt-4 grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)] lg:items-start">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        // Positions and anchors are worked out for the reading direction here: the text itself runs left to right.
        direction="ltr"
        role="img"
        aria-labelledby="quality-svg-title quality-svg-desc"
        className="h-auto w-full rounded-xl border border-slate-200 bg-white"
        data-testid="quality-timeline"
      >
        <title id="quality-svg-title">{text.title}</title>
        <desc id="quality-svg-desc">{text.desc}</desc>
        <g fontSize="13" fill="#334155">
          <text x={labelX} y={LANE_ANSWER + 4} textAnchor={labelAnchor}>
            {text.laneAnswer}
          </text>
          <text x={labelX} y={LANE_TURNS + 4} textAnchor={labelAnchor}>
            {text.laneTurns}
          </text>
          <text x={labelX} y={LANE_INTERRUPTIONS + 4} textAnchor={labelAnchor}>
            {text.laneInterruptions}
          </text>
        </g>
        {/* The answer, then the wait for the first words. */}
        <circle cx={x(0)} cy={LANE_ANSWER} r="5" fill="#0f766e" />
        {timeline.firstWordsMs !== null ? (
          <rect {...span(0, timeline.firstWordsMs)} y={LANE_ANSWER - BAR / 2} height={BAR} rx="3" fill="#14b8a6" />
        ) : null}
        {timeline.turns.map((turn, i) =>
          turn.latencyMs === null ? (
            <rect key={i} {...span(turn.at, lastTurnEnd)} y={LANE_TURNS - BAR / 2} height={BAR} rx="3" fill="#be123c" opacity="0.5" />
          ) : (
            <rect key={i} {...span(turn.at, turn.at + turn.latencyMs)} y={LANE_TURNS - BAR / 2} height={BAR} rx="3" fill="#d97706" />
          ),
        )}
        {timeline.interruptions.map((at, i) => (
          <path key={i} d={`M ${x(at)} ${LANE_INTERRUPTIONS - 8} l 6 12 l -12 0 z`} fill="#be123c" stroke="#881337" strokeWidth="1" />
        ))}
        {timeline.endMs !== null ? (
          <line
            x1={x(timeline.endMs)}
            x2={x(timeline.endMs)}
            y1={LANE_ANSWER - BAR}
            y2={AXIS}
            stroke="#475569"
            strokeWidth="2"
            strokeDasharray="4 3"
          />
        ) : null}
        <line x1={plotStart} x2={plotEnd} y1={AXIS} y2={AXIS} stroke="#64748b" />
        <g fontSize="12" fill="#475569">
          {timeline.ticks.map((tick) => (
            <g key={tick.ms}>
              <line x1={x(tick.ms)} x2={x(tick.ms)} y1={AXIS} y2={AXIS + 5} stroke="#64748b" />
              <text x={x(tick.ms)} y={AXIS + 19} textAnchor="middle">
                {tick.label}
              </text>
            </g>
          ))}
          <text x={(plotStart + plotEnd) / 2} y={HEIGHT - 6} textAnchor="middle">
            {rtl ? `← ${text.axis}` : `${text.axis} →`}
          </text>
        </g>
      </svg>
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <caption className="mb-2 text-start font-medium text-slate-900">{text.caption}</caption>
          <thead>
            <tr className="border-b border-slate-300 text-slate-700">
              <th scope="col" className="py-1.5 pe-3 text-start font-medium">
                {text.moment}
              </th>
              <th scope="col" className="py-1.5 pe-3 text-end font-medium">
                {text.at}
              </th>
              <th scope="col" className="py-1.5 text-end font-medium">
                {text.wait}
              </th>
            </tr>
          </thead>
          <tbody>
            {timeline.rows.map((row) => (
              <tr key={row.key} className="border-b border-slate-100" data-row={row.key}>
                <th scope="row" className="py-1.5 pe-3 text-start font-normal text-slate-900">
                  {row.moment}
                </th>
                <td className="py-1.5 pe-3 text-end whitespace-nowrap text-slate-700 tabular-nums">{row.at}</td>
                <td className="py-1.5 text-end font-medium whitespace-nowrap text-slate-900 tabular-nums">{row.wait}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
