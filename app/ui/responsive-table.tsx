import type { ReactNode } from "react";

export interface Column<Row> {
  /** The column's heading; on phones, the label in front of each value. */
  header: string;
  cell: (row: Row) => ReactNode;
  /** The column that names the row: on phones it becomes the card's title. */
  primary?: boolean;
}

/**
 * Rows of data: a table on wide screens, a list of cards on phones (where a table would be
 * clipped or scroll sideways). Both are in the page; CSS shows one, and `display: none` hides
 * the other from screen readers too, so nothing is read twice.
 */
export function ResponsiveTable<Row>({
  caption,
  columns,
  rows,
  rowKey,
  captionVisible = false,
}: {
  caption: string;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string | number;
  captionVisible?: boolean;
}) {
  const primary = columns.find((column) => column.primary) ?? columns[0]!;
  const rest = columns.filter((column) => column !== primary);
  return (
    <div>
      <div className="hidden overflow-hidden rounded-card border border-sand-200 bg-white shadow-card md:block">
        <table className="w-full border-collapse text-start text-sm">
          <caption className={captionVisible ? "p-4 text-start text-base font-semibold text-ink" : "sr-only"}>{caption}</caption>
          <thead className="bg-sand-50">
            <tr>
              {columns.map((column) => (
                <th key={column.header} scope="col" className="border-b border-sand-200 px-4 py-3 text-start font-semibold text-ink">
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={rowKey(row)} className="border-b border-sand-200 last:border-b-0">
                {columns.map((column) =>
                  column === primary ? (
                    <th key={column.header} scope="row" className="px-4 py-3 text-start align-top font-medium text-ink">
                      {column.cell(row)}
                    </th>
                  ) : (
                    <td key={column.header} className="px-4 py-3 align-top text-ink-soft">
                      {column.cell(row)}
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="md:hidden">
        {captionVisible ? <p className="mb-3 text-base font-semibold text-ink">{caption}</p> : null}
        <ul aria-label={caption} className="space-y-3">
          {rows.map((row) => (
            <li key={rowKey(row)} className="rounded-card border border-sand-200 bg-white p-4 shadow-card">
              <p className="font-semibold text-ink">{primary.cell(row)}</p>
              <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
                {rest.map((column) => (
                  <div key={column.header} className="contents">
                    <dt className="text-ink-muted">{column.header}</dt>
                    <dd className="text-ink-soft">{column.cell(row)}</dd>
                  </div>
                ))}
              </dl>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
