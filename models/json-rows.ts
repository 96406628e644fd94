import { getTableColumns, type Table } from "drizzle-orm";

/**
 * A table's row read as one JSON value (`row_to_json`), with its values as Drizzle reads them from
 * the columns (a Date for each timestamp). PGlite turns each field of a result into JavaScript on
 * its own, at a cost of several microseconds each; a wide row read whole costs far less as JSON.
 */
export function rowFromJson<T extends Table>(table: T, json: Record<string, unknown>): T["$inferSelect"] {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = json[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T["$inferSelect"];
}
