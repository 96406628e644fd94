import { parse, protocol, types, type PGlite, type QueryOptions, type Results } from "@electric-sql/pglite";

/**
 * How many statement texts one embedded database keeps parsed. The app runs a few dozen texts
 * over and over (each of Drizzle's query shapes is one text, its values bound); a text not run
 * for a while gives its place to the newest.
 */
const KEPT_STATEMENTS = 200;

/**
 * A kept statement is run on a generic plan, made once for any values, instead of being planned
 * again on every run: planning in PGlite's WebAssembly cost more than running (the owner's page of
 * bookings: 1.3 ms of planning, 2.9 → 1.4 ms a read), and PostgreSQL's own choice kept planning it
 * afresh, as its estimate leaves out what planning costs here. Only around these statements: a
 * statement parsed for one run (a transaction's, the job queue's) keeps a plan made for its values.
 */
const genericPlan = protocol.serialize.query("SET plan_cache_mode = force_generic_plan");
const planAsUsual = protocol.serialize.query("RESET plan_cache_mode");

/** Statements made in this process: the next one's number (names unique even with two wrappers of one database). */
let made = 0;

/** A parsed statement: its name in the session, and its parameters' types (for their encoding). */
interface Parsed {
  name: string;
  parameterTypes: number[];
}

/**
 * The embedded database with its statements parsed once: PGlite's `query` parses, describes and
 * plans every statement afresh, six trips into its WebAssembly for each (the owner's session lookup
 * spent two thirds of its time there, 0.87 ms against 0.23 ms for the same statement prepared).
 * Here a query outside a transaction runs a named statement of the session, prepared on its
 * first run, with the same values, parsers, errors and locks as PGlite's own `query`, on a plan
 * made once (genericPlan). What this
 * does not handle (a blob, a transaction's queries) goes to PGlite itself.
 */
export function withParsedStatements(pglite: PGlite): PGlite {
  const parsed = new Map<string, Parsed>();
  const send = (...messages: Uint8Array[]) => pglite.execProtocolStream(joined(messages), { syncToFs: false });

  async function prepare(text: string, options?: QueryOptions): Promise<Parsed> {
    const name = `sakina_${++made}`;
    const described = await send(
      protocol.serialize.parse({ name, text, types: options?.paramTypes }),
      protocol.serialize.describe({ type: "S", name }),
      protocol.serialize.sync(),
    );
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(described) };
    parsed.set(text, statement);
    if (parsed.size > KEPT_STATEMENTS) {
      const [oldestText, oldest] = parsed.entries().next().value!;
      parsed.delete(oldestText);
      await send(protocol.serialize.close({ type: "S", name: oldest.name }), protocol.serialize.sync());
    }
    return statement;
  }

  async function execute(statement: Parsed, params: unknown[], options?: QueryOptions) {
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null;
      const type = statement.parameterTypes[i]!;
      const serialize = options?.serializers?.[type] ?? pglite.serializers[type];
      return serialize ? serialize(param) : String(param);
    });
    // The statement's own run only: what the settings around it answered is not its result.
    const messages = await send(
      genericPlan,
      protocol.serialize.bind({ statement: statement.name, values: values as string[] }),
      protocol.serialize.describe({ type: "P" }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
      planAsUsual,
    );
    return messages.slice(messages.findIndex((message) => message.name === "readyForQuery") + 1);
  }

  async function run<T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    if (options?.blob) return pglite.query<T>(text, params, options);
    await pglite._checkReady();
    return pglite._runExclusiveTransaction(() =>
      pglite._runExclusiveQuery(async () => {
        let messages;
        try {
          let statement = parsed.get(text);
          if (statement) {
            // The most recently used last: the first is the one to let go.
            parsed.delete(text);
            parsed.set(text, statement);
          } else statement = await prepare(text, options);
          try {
            messages = await execute(statement, params, options);
          } catch (error) {
            // The schema changed under a kept statement (a migration), or the session dropped it: parsed again, once.
            if (!isStale(error)) throw error;
            parsed.delete(text);
            await send(protocol.serialize.close({ type: "S", name: statement.name }), protocol.serialize.sync());
            messages = await execute(await prepare(text, options), params, options);
          }
        } catch (error) {
          throw Object.assign(error as Error, { query: text, params, queryOptions: options });
        }
        if (!pglite.isInTransaction()) await pglite.syncToFs();
        return resultOf<T>(messages, pglite.parsers, options);
      }),
    );
  }

  return new Proxy(pglite, {
    get(target, property) {
      if (property === "query") return run;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The statement's result, as PGlite's parseResults makes it for one statement, without copying
 * the session's whole table of parsers for every query that brings its own (Drizzle's do: a
 * twentieth of the owner's list went to that copy).
 */
function resultOf<T>(messages: Awaited<ReturnType<PGlite["execProtocolStream"]>>, sessionParsers: PGlite["parsers"], options?: QueryOptions): Results<T> {
  let fields: { name: string; dataTypeID: number }[] = [];
  const rows: unknown[] = [];
  const own = options?.parsers;
  const value = (text: string | null, type: number) => {
    if (text === null) return null;
    const parser = own?.[type] ?? sessionParsers[type] ?? types.parsers[type];
    return parser ? parser(text, type) : text;
  };
  for (const message of messages) {
    if (message.name === "rowDescription") {
      fields = (message as unknown as { fields: { name: string; dataTypeID: number }[] }).fields.map(({ name, dataTypeID }) => ({ name, dataTypeID }));
    } else if (message.name === "dataRow") {
      const values = (message as unknown as { fields: (string | null)[] }).fields;
      if (options?.rowMode === "array") rows.push(values.map((text, i) => value(text, fields[i]!.dataTypeID)));
      else rows.push(Object.fromEntries(values.map((text, i) => [fields[i]!.name, value(text, fields[i]!.dataTypeID)])));
    } else if (message.name === "commandComplete") {
      // As PGlite counts it: the row count at the end of an INSERT, UPDATE, DELETE, COPY or MERGE tag.
      const parts = (message as unknown as { text: string }).text.split(" ");
      const command = parts[0]!;
      const rowCount = parseInt(parts.at(-1)!, 10);
      const affectedRows = ["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"].includes(command) ? rowCount : 0;
      return { rows, fields, command, affectedRows, ...(Number.isNaN(rowCount) ? {} : { rowCount }) } as Results<T>;
    }
  }
  return { affectedRows: 0, rows: [], fields: [] } as Results<T>;
}

/** PostgreSQL's refusal of a kept statement that no longer fits: its result's shape changed, or it is gone. */
function isStale(error: unknown) {
  const { code, message } = error as { code?: string; message?: string };
  return code === "26000" || (code === "0A000" && Boolean(message?.includes("cached plan must not change result type")));
}

function joined(messages: Uint8Array[]) {
  const bytes = new Uint8Array(messages.reduce((length, message) => length + message.length, 0));
  let offset = 0;
  for (const message of messages) {
    bytes.set(message, offset);
    offset += message.length;
  }
  return bytes;
}
