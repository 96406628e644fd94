/** One bar of a chart, and one row of the table beside it. */
export interface Bar {
  key: string;
  label: string;
  /** A shorter label under a narrow column of the chart (a weekday's abbreviation). */
  short?: string;
  value: number;
}

/** A chart as the page draws it: every text already in the owner's language. */
export interface Chart {
  id: string;
  title: string;
  /** What is counted, in one sentence (the SVG's description starts with it). */
  intro: string;
  /** The largest bar in words, or that there is nothing yet. */
  summary: string;
  labelHeader: string;
  valueHeader: string;
  bars: Bar[];
}

export interface AnalyticsView {
  period: number;
  timeZone: string;
  /** The business's zone in words ("Eastern Time"). */
  zoneName: string;
  tiles: { id: string; label: string; value: string; detail: string | null }[];
  plan: { title: string; detail: string; used: number; allowance: number; label: string };
  charts: Record<"status" | "results" | "weekdays" | "hours" | "days", Chart>;
  quality: QualityDaysView;
  /** A short sentence a screen reader hears after a live update. */
  summary: string;
}

/** Call quality per day (ADR 0033), every text worded; `rows` newest first. */
export interface QualityDaysView {
  title: string;
  intro: string;
  none: string;
  headers: Record<"day" | "calls" | "fwMedian" | "fwP90" | "turns" | "turnMedian" | "turnP90", string>;
  rows: {
    day: string;
    label: string;
    calls: string;
    fwMedian: string;
    fwP90: string;
    turns: string;
    turnMedian: string;
    turnP90: string;
  }[];
}
