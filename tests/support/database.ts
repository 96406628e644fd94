import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { appendFile, cp, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { migrationsFolder, openDatabase } from "~/platform/db.server";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * A database of its own for one test file or one e2e server: a fresh PostgreSQL database when
 * DATABASE_URL is set (CI runs the suite both ways), otherwise nothing, and PGlite is used.
 *
 * `premigrated`: it starts with every migration and the job queues already there, as if the app had run on it
 * before (the app still runs its migrations at start, and finds none left to apply): on
 * PostgreSQL a copy of a migrated template database, on PGlite (given `dataDir`, the app's
 * DATA_DIR) a copy of a migrated `pglite` folder. Creating and migrating a database costs
 * seconds of CPU at every app start (most of it PGlite's initdb), a copy a fraction of that.
 * Tests of a first start on an empty database leave it out.
 *
 * `asDeployed`: PGlite keeps PostgreSQL's own settings (a benchmark's database); otherwise a PGlite
 * copy gets the test settings (TEST_SETTINGS).
 */
export async function createIsolatedDatabase(options: { premigrated?: boolean; dataDir?: string; asDeployed?: boolean } = {}): Promise<{
  databaseUrl?: string;
  /** What a process needs to use it: the URL and, as every deployment on a server, a shared SESSION_SECRET. */
  env: Record<string, string>;
  drop(): Promise<void>;
}> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    if (options.premigrated && options.dataDir) {
      const folder = path.join(options.dataDir, "pglite");
      await copyMigratedPglite(folder);
      if (!options.asDeployed)
        await appendFile(path.join(folder, "postgresql.conf"), `\n# A test's database (tests/support/database.ts)\n${TEST_SETTINGS}\n`);
    }
    return { env: {}, drop: async () => {} };
  }
  const name = `sakina_test_${randomBytes(6).toString("hex")}`;
  const template = options.premigrated ? await migratedPostgresTemplate(base) : null;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    env: { DATABASE_URL: url.toString(), SESSION_SECRET: randomBytes(32).toString("hex") },
    async drop() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * What the schema of a migrated database depends on: the migrations and the PGlite, Drizzle and
 * pg-boss versions. Templates are named by it, so a test never starts from another schema.
 */
let schemaKey: Promise<string> | undefined;
function migrationsKey() {
  schemaKey ??= (async () => {
    const hash = createHash("sha256");
    for (const name of ["@electric-sql/pglite", "drizzle-orm", "pg-boss"]) {
      const { version } = JSON.parse(await readFile(path.join(root, "node_modules", name, "package.json"), "utf8")) as { version: string };
      hash.update(`${name} ${version}\0`);
    }
    for (const file of (await readdir(migrationsFolder, { recursive: true })).sort()) {
      const full = path.join(migrationsFolder, file);
      if (!(await stat(full)).isFile()) continue;
      hash
        .update(`${file}\0`)
        .update(await readFile(full))
        .update("\0");
    }
    return hash.digest("hex").slice(0, 16);
  })();
  return schemaKey;
}

let postgresTemplate: Promise<string> | undefined;

/**
 * A migrated database on the server to copy (CREATE DATABASE … TEMPLATE), made once per schema
 * and kept: made under another name and renamed when whole, under an advisory lock so two test
 * files do not make it at once.
 */
function migratedPostgresTemplate(base: string): Promise<string> {
  postgresTemplate ??= (async () => {
    const template = `sakina_template_${await migrationsKey()}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      await admin.query("SELECT pg_advisory_lock(hashtext($1))", [template]);
      const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
      if (rowCount === 0) {
        const making = `${template}_making`;
        await admin.query(`DROP DATABASE IF EXISTS ${making} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${making}`);
        const url = new URL(base);
        url.pathname = `/${making}`;
        await migrateWithQueues({ databaseUrl: url.toString() });
        await admin.query(`ALTER DATABASE ${making} RENAME TO ${template}`);
      }
    } finally {
      await admin.end();
    }
    return template;
  })();
  return postgresTemplate;
}

/**
 * Migrates a new database and creates the job queue's schema and queues in it, as the app's first
 * start would: each queue is a partition with eight indexes, and creating the thirteen took
 * about 0.7 s of every app start on PGlite. A queue added since is created by the app at start.
 */
async function migrateWithQueues(options: { databaseUrl?: string; dataDir?: string }) {
  const database = await openDatabase(options);
  try {
    const [{ startJobQueue }, { allJobs }] = await Promise.all([import("~/platform/data/jobs.server"), import("~/server/all-jobs.server")]);
    const queue = await startJobQueue(database, { signingSecret: randomBytes(32).toString("hex") });
    await queue.prepare(allJobs);
    await queue.stop();
  } finally {
    await database.close();
  }
}

/**
 * What a test's PGlite copy adds to its postgresql.conf (a later line wins). PGlite zeroes its
 * shared memory at every start: with the default 128 MB of buffers that was 0.5 s of CPU per app
 * start in a test worker (whose baseline WebAssembly compiler runs the memset), 40 % of the start.
 * A test's database holds a few hundred rows, which 16 MB of buffers hold many times over.
 */
const TEST_SETTINGS = "shared_buffers = 16MB";

let template: Promise<string> | undefined;

/**
 * Copies the migrated PGlite folder (about 1,300 files, 42 MB) to `target`, copy-on-write where
 * the file system can. `cp -a` does it in a few tenths of a second; Node's `fs.cp` took about two
 * seconds of every app start (a stat and a copy per file, each a round trip through the thread
 * pool), and is kept for a system without `cp`.
 */
async function copyMigratedPglite(target: string) {
  template ??= migratedPgliteTemplate();
  const source = await template;
  await mkdir(path.dirname(target), { recursive: true });
  const copied = await new Promise<boolean>((resolve) =>
    execFile("cp", ["-a", "--reflink=auto", source, target], (error) => resolve(!error)),
  );
  if (!copied) {
    await rm(target, { recursive: true, force: true });
    await cp(source, target, { recursive: true, mode: constants.COPYFILE_FICLONE });
  }
}

/**
 * A PGlite folder with every migration applied, made once per schema and kept in the temporary
 * folder. Made beside its final name and renamed into place: a test file
 * never sees a half-made one, and when two make it at once, the second's is dropped.
 */
async function migratedPgliteTemplate(): Promise<string> {
  const folder = path.join(os.tmpdir(), `sakina-pglite-migrated-${await migrationsKey()}`);
  if (await exists(folder)) return folder;
  const making = `${folder}.making-${process.pid}-${randomBytes(4).toString("hex")}`;
  await mkdir(making, { recursive: true });
  try {
    await migrateWithQueues({ dataDir: path.join(making, "pglite") });
    await rename(path.join(making, "pglite"), folder).catch(async (error: NodeJS.ErrnoException) => {
      if (!(await exists(folder))) throw error;
    });
  } finally {
    await rm(making, { recursive: true, force: true });
  }
  return folder;
}

async function exists(file: string) {
  return stat(file).then(
    () => true,
    () => false,
  );
}
