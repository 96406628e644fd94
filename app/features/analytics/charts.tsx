import { useId } from "react";
import { useTranslation } from "~/ui/translation";
import type { Bar, Chart } from "./types";

/** The drawing's own width: about what it gets on a phone, so its text stays readable there. */
const WIDTH = 420;
const BAR_COLOUR = "#0f766e"; // teal-700: 5.5:1 against white, over the 3:1 a graphic needs
const AXIS_COLOUR = "#94a3b8";
const TEXT_COLOUR = "#334155";

/**
 * A chart drawn on the server as SVG (an image with a title and a description naming the
 * largest bar) and, beside it, the same figures as a table, which is what a screen reader or a
 * keyboard user reads. Right to left, the bars run from the right.
 */
export function ChartCard({ chart, layout, locale, rtl }: { chart: Chart; layout: "rows" | "columns"; locale: string; rtl: boolean }) {
  const { t } = useTranslation();
  const id = useId();
  const number = new Intl.NumberFormat(locale);
  const long = chart.bars.length > 12;
  return (
    <section aria-labelledby={`${id}-h`} className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
      <h2 id={`${id}-h`} className="text-lg font-semibold text-slate-900">
        {chart.title}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{chart.intro}</p>
      <div className="mt-3 grid gap-4 md:grid-cols-[3fr_2fr]">
        <figure className="m-0">
          <svg
            role="img"
            aria-labelledby={`${id}-t ${id}-d`}
            viewBox={`0 0 ${WIDTH} ${layout === "rows" ? rowsHeight(chart.bars) : COLUMNS_HEIGHT}`}
            className="h-auto w-full max-w-xl"
          >
            <title id={`${id}-t`}>{chart.title}</title>
            <desc id={`${id}-d`}>{`${chart.intro} ${chart.summary}`}</desc>
            {layout === "rows" ? (
              <Rows bars={chart.bars} number={number} rtl={rtl} />
            ) : (
              <Columns bars={chart.bars} number={number} rtl={rtl} />
            )}
          </svg>
          <figcaption className="mt-1 text-sm text-slate-700">{chart.summary}</figcaption>
        </figure>
        <div
          className={
            long ? "max-h-72 overflow-y-auto rounded-lg border border-slate-200 focus-visible:outline-2 focus-visible:outline-teal-700" : ""
          }
          {...(long ? { tabIndex: 0, role: "region", "aria-label": t("analytics.tableOf", { title: chart.title }) } : {})}
        >
          <table className="w-full border-collapse text-sm">
            <caption className="sr-only">{t("analytics.tableOf", { title: chart.title })}</caption>
            <thead className="bg-slate-50">
              <tr>
                <th scope="col" className="border-b border-slate-200 px-3 py-2 text-start font-semibold text-slate-900">
                  {chart.labelHeader}
                </th>
                <th scope="col" className="border-b border-slate-200 px-3 py-2 text-end font-semibold text-slate-900">
                  {chart.valueHeader}
                </th>
              </tr>
            </thead>
            <tbody>
              {chart.bars.map((bar) => (
                <tr key={bar.key} className="border-b border-slate-100 last:border-b-0">
                  <th scope="row" className="px-3 py-1.5 text-start font-normal text-slate-800">
                    {bar.label}
                  </th>
                  <td className="px-3 py-1.5 text-end text-slate-900 tabular-nums" data-key={bar.key}>
                    {number.format(bar.value)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}

const ROW = 30;
const rowsHeight = (bars: Bar[]) => bars.length * ROW + 8;

/** One horizontal bar per category, its name at the start and its figure after the bar. */
function Rows({ bars, number, rtl }: { bars: Bar[]; number: Intl.NumberFormat; rtl: boolean }) {
  const labelWidth = 190;
  const valueRoom = 48;
  const plot = WIDTH - labelWidth - valueRoom;
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  // Mirrors a horizontal position for right-to-left pages.
  const x = (position: number, width = 0) => (rtl ? WIDTH - position - width : position);
  return (
    <g fontSize="13" fill={TEXT_COLOUR}>
      {bars.map((bar, i) => {
        const y = 4 + i * ROW;
        const length = (bar.value / max) * plot;
        return (
          <g key={bar.key}>
            <text x={x(labelWidth - 10)} y={y + 19} textAnchor={rtl ? "start" : "end"}>
              {bar.label}
            </text>
            <rect x={x(labelWidth, length)} y={y + 5} width={length} height={ROW - 10} rx="3" fill={BAR_COLOUR} />
            <text x={x(labelWidth + length + 6)} y={y + 19} textAnchor={rtl ? "end" : "start"}>
              {number.format(bar.value)}
            </text>
          </g>
        );
      })}
      <line x1={x(labelWidth)} x2={x(labelWidth)} y1={0} y2={rowsHeight(bars)} stroke={AXIS_COLOUR} />
    </g>
  );
}

const COLUMNS_HEIGHT = 200;
/** Room at each side, so the first and last labels are not cut. */
const SIDE = 16;

/** One vertical bar per day or hour, in order (from the right when right to left). */
function Columns({ bars, number, rtl }: { bars: Bar[]; number: Intl.NumberFormat; rtl: boolean }) {
  const top = 22;
  const bottom = COLUMNS_HEIGHT - 28;
  const slot = (WIDTH - 2 * SIDE) / bars.length;
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  // Every label when they fit, else every few (the table has them all).
  const labelEvery = Math.ceil(bars.length / 7);
  return (
    <g fontSize="13" fill={TEXT_COLOUR}>
      <line x1={0} x2={WIDTH} y1={bottom} y2={bottom} stroke={AXIS_COLOUR} />
      {bars.map((bar, i) => {
        const index = rtl ? bars.length - 1 - i : i;
        const height = (bar.value / max) * (bottom - top);
        const centre = SIDE + index * slot + slot / 2;
        const width = Math.max(2, slot * 0.7);
        return (
          <g key={bar.key}>
            <rect x={centre - width / 2} y={bottom - height} width={width} height={height} rx="2" fill={BAR_COLOUR} />
            {bars.length <= 7 && bar.value > 0 ? (
              <text x={centre} y={bottom - height - 5} textAnchor="middle">
                {number.format(bar.value)}
              </text>
            ) : null}
            {i % labelEvery === 0 ? (
              <text x={centre} y={COLUMNS_HEIGHT - 8} textAnchor="middle">
                {bar.short ?? bar.label}
              </text>
            ) : null}
          </g>
        );
      })}
    </g>
  );
}
