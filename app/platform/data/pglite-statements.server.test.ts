import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withParsedStatements } from "./pglite-statements.server";

let pglite: PGlite;
let db: PGlite;

beforeAll(async () => {
  pglite = await PGlite.create();
  db = withParsedStatements(pglite);
  await pglite.exec(`
    CREATE TABLE things (id serial PRIMARY KEY, name text UNIQUE NOT NULL, at timestamptz, tags text[], extra jsonb);
    INSERT INTO things (name, at, tags, extra) VALUES ('one', '2026-12-03T10:00:00Z', '{a,b}', '{"k": 1}'), ('two', NULL, NULL, NULL);
  `);
});

afterAll(async () => {
  await pglite?.close();
});

/** The session's prepared statements for a text. */
const preparedFor = async (text: string) =>
  (await pglite.query<{ count: number }>("SELECT count(*)::int AS count FROM pg_prepared_statements WHERE statement = $1", [text])).rows[0]!
    .count;

describe("the embedded database's parsed statements", () => {
  it("answer as PGlite's own query does, in both row modes, with every kind of value", async () => {
    const text = "SELECT id, name, at, tags, extra FROM things WHERE at IS NOT DISTINCT FROM $1 OR name = ANY($2) ORDER BY id";
    const params = [new Date("2026-12-03T10:00:00Z"), ["two"]];
    for (const options of [undefined, { rowMode: "array" as const }]) {
      // With parsers of its own for some types, as Drizzle gives them.
      for (const withParsers of [options, { ...options, parsers: { 1184: (text: string) => `at ${text}` } }]) {
        expect(await db.query(text, params, withParsers)).toEqual(await pglite.query(text, params, withParsers));
      }
    }
    const update = "UPDATE things SET extra = $1 WHERE name = $2";
    const written = await db.query(update, [{ k: 2 }, "two"]);
    expect(written).toEqual(await pglite.query(update, [{ k: 2 }, "two"]));
    expect(written.affectedRows).toBe(1);
    expect((await db.query<{ extra: unknown }>("SELECT extra FROM things WHERE name = $1", ["two"])).rows).toEqual([{ extra: { k: 2 } }]);
  });

  it("parse a text once, however often it runs", async () => {
    const text = "SELECT name FROM things WHERE id = $1";
    for (let i = 0; i < 8; i++) expect((await db.query<{ name: string }>(text, [1])).rows).toEqual([{ name: "one" }]);
    expect(await preparedFor(text)).toBe(1);
  });

  it("plan a kept statement once, and leave other statements planned for their values", async () => {
    const text = "SELECT name FROM things WHERE name = $1 OR id = $2";
    for (let i = 0; i < 3; i++) await db.query(text, ["one", i]);
    const [plans] = (
      await pglite.query<{ generic: number; custom: number }>(
        "SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement = $1",
        [text],
      )
    ).rows;
    expect(plans).toEqual({ generic: 3, custom: 0 });
    // The session's setting is PostgreSQL's own around them, after a failed run too.
    await expect(db.query("SELECT 1 / $1::int", [0])).rejects.toMatchObject({ code: "22012" });
    expect((await pglite.query<{ plan_cache_mode: string }>("SHOW plan_cache_mode")).rows).toEqual([{ plan_cache_mode: "auto" }]);
  });

  it("throw the database's error with its code, and go on working after it", async () => {
    const insert = "INSERT INTO things (name) VALUES ($1)";
    await expect(db.query(insert, ["one"])).rejects.toMatchObject({ code: "23505", query: insert });
    await expect(db.query("SELEC nothing")).rejects.toMatchObject({ code: "42601" });
    expect(await preparedFor("SELEC nothing")).toBe(0);
    expect((await db.query(insert, ["three"])).affectedRows).toBe(1);
    expect(pglite.isInTransaction()).toBe(false);
  });

  it("follow a change of the schema under a kept statement", async () => {
    const text = "SELECT * FROM things WHERE id = $1";
    expect(Object.keys((await db.query<object>(text, [1])).rows[0]!)).not.toContain("added");
    await pglite.exec("ALTER TABLE things ADD COLUMN added int DEFAULT 7");
    expect((await db.query<{ added: number }>(text, [1])).rows[0]!.added).toBe(7);
    expect(await preparedFor(text)).toBe(1);
  });

  it("never run inside another caller's transaction", async () => {
    let inside!: () => void;
    const opened = new Promise<void>((resolve) => (inside = resolve));
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    const transaction = pglite.transaction(async (tx) => {
      await tx.query("UPDATE things SET name = 'renamed' WHERE id = 1");
      inside();
      await committed;
      await tx.rollback();
    });
    await opened;
    const read = db.query<{ name: string }>("SELECT name FROM things WHERE id = $1", [1]);
    commit();
    await transaction;
    // Queued behind the transaction: it sees the rolled-back name, not the one inside.
    expect((await read).rows).toEqual([{ name: "one" }]);
  });

  it("keep at most 200 texts, letting go of the longest unused", async () => {
    for (let i = 0; i < 230; i++) await db.query(`SELECT ${i} AS n, name FROM things WHERE id = $1`, [1]);
    const { rows } = await pglite.query<{ count: number }>("SELECT count(*)::int AS count FROM pg_prepared_statements");
    expect(rows[0]!.count).toBeLessThanOrEqual(200);
    expect(await preparedFor("SELECT 229 AS n, name FROM things WHERE id = $1")).toBe(1);
    expect(await preparedFor("SELECT 0 AS n, name FROM things WHERE id = $1")).toBe(0);
  });
});
