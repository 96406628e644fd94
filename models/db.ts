import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema";

/** A Drizzle database or transaction over this schema: PGlite or node-postgres alike. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
