import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseEnv } from "~/platform/env.server";
import { createServices } from "~/server/services.server";
import { bridgeLeases } from "~/voice/bridge-leases.server";
import { createIsolatedDatabase } from "./database";

/** The app's real services on a database and data folder of their own. */
export async function createTestServices(env: Record<string, string> = {}, options: { runWorkers?: boolean } = {}) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "sakina-test-"));
  const database = await createIsolatedDatabase({ premigrated: true, dataDir: env.DATA_DIR ? undefined : dataDir });
  const services = await createServices(
    parseEnv({
      NODE_ENV: "test",
      DATA_DIR: dataDir,
      SEED_DEMO_DATA: "false",
      ...database.env,
      ...env,
    }),
    options,
  );
  // The web server these services stand for serves the calls' media streams itself, and says so
  // (its bridge heartbeat), unless MEDIA_STREAM_ORIGIN names a bridge process of its own.
  const bridge = bridgeLeases(services.db, { heartbeat: !services.env.MEDIA_STREAM_ORIGIN });
  await bridge.started;
  return {
    ...services,
    dataDir,
    async close() {
      await bridge.stop();
      await services.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
