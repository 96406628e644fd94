import { getTableColumns, sql, type Column, type Table } from "drizzle-orm";

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

/** `json_build_object` of these columns, each under its key: one JSON value for a row of a select (read back with fieldsFromJson). */
export function jsonObjectOf(columns: Record<string, Column>) {
  return sql`json_build_object(${sql.join(
    Object.entries(columns).map(([key, column]) => sql`${sql.raw(`'${key}'`)}, ${column}`),
    sql`, `,
  )})`;
}

/** A jsonObjectOf value, with its values as Drizzle reads them from the columns. */
export function fieldsFromJson(columns: Record<string, Column>, json: Record<string, unknown>) {
  const fields: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(columns)) {
    const value = json[key];
    fields[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return fields;
}
