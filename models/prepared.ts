import type { Db } from "./db";

/**
 * A statement Drizzle builds once per database handle (and transaction) and then runs with new
 * values. Building a select's SQL costs Drizzle more CPU than PGlite spends running it (about half
 * a millisecond for the owner's page of bookings), and the pages every owner opens run the same
 * few statements on every request. On PostgreSQL the name makes it a prepared statement of each
 * connection, parsed once; so one name must always stand for one text.
 */
export function preparedPerDb<Q>(build: (db: Db) => Q): (db: Db) => Q {
  const built = new WeakMap<Db, Q>();
  return (db) => {
    let query = built.get(db);
    if (!query) {
      query = build(db);
      built.set(db, query);
    }
    return query;
  };
}
