import type { QualityDaysView } from "./types";

const COLUMNS = ["calls", "fwMedian", "fwP90", "turns", "turnMedian", "turnP90"] as const;

/** Call quality per day as a table (ADR 0033): the owner's analytics and the admin's page. */
export function QualityDays({ view, headingLevel = 2 }: { view: QualityDaysView; headingLevel?: 1 | 2 }) {
  const Heading = headingLevel === 1 ? "h1" : "h2";
  return (
    <section aria-labelledby="quality-days-title" className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
      <Heading
        id="quality-days-title"
        className={headingLevel === 1 ? "text-2xl font-semibold tracking-tight text-slate-900" : "text-lg font-semibold text-slate-900"}
      >
        {view.title}
      </Heading>
      <p className="mt-1 text-sm text-slate-700">{view.intro}</p>
      {view.rows.length === 0 ? (
        <p className="mt-3 text-slate-700">{view.none}</p>
      ) : (
        <div className="mt-3 overflow-x-auto">
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-300 text-slate-700">
                <th scope="col" className="py-1.5 pe-3 text-start font-medium">
                  {view.headers.day}
                </th>
                {COLUMNS.map((column) => (
                  <th key={column} scope="col" className="py-1.5 pe-3 text-end font-medium">
                    {view.headers[column]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {view.rows.map((row) => (
                <tr key={row.day} className="border-b border-slate-100" data-testid="quality-day" data-day={row.day}>
                  <th scope="row" className="py-1.5 pe-3 text-start font-normal text-slate-900">
                    {row.label}
                  </th>
                  {COLUMNS.map((column) => (
                    <td key={column} className="py-1.5 pe-3 text-end text-slate-800 tabular-nums" data-column={column}>
                      {row[column]}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
