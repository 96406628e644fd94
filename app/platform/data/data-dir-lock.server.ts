import { readFileSync, rmSync, writeFileSync } from "node:fs";

/**
 * PGlite keeps the database in a folder that only one process may open: a second one (a second
 * server, `npm run admin:create` while the server runs) reads a copy that drifts apart from the
 * first, and whatever it writes is lost or corrupts the folder. So the process that opens the
 * folder holds a lock file beside it with its pid, and any other process is refused while that
 * process lives. A lock left by a process that is gone (a crash) is taken over.
 */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly lockFile: string,
  ) {
    super(
      `The PGlite data folder ${dataDir} is in use by process ${pid} (a running Sakina server?). ` +
        `Stop it first, or set DATABASE_URL to a PostgreSQL server, which several processes can share. ` +
        `If no such process runs, delete ${lockFile}.`,
    );
  }
}

/** Folders this process holds, with how many of its handles use each (tests open one twice). */
const held = new Map<string, number>();

/** Takes the folder's lock (or refuses with DataDirInUseError); returns its release. */
export function lockDataDir(dataDir: string): () => void {
  const lockFile = `${dataDir}.lock`;
  const count = held.get(lockFile) ?? 0;
  if (count === 0) claim(dataDir, lockFile);
  held.set(lockFile, count + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (held.get(lockFile) ?? 1) - 1;
    if (left > 0) return void held.set(lockFile, left);
    held.delete(lockFile);
    if (ownerOf(lockFile) === process.pid) rmSync(lockFile, { force: true });
  };
}

function claim(dataDir: string, lockFile: string) {
  // Two tries: the second after removing the lock of a process that no longer exists.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: "wx" });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const pid = ownerOf(lockFile);
    if (pid !== null && pid !== process.pid && isRunning(pid)) throw new DataDirInUseError(dataDir, pid, lockFile);
    rmSync(lockFile, { force: true });
  }
  throw new Error(`could not take the lock ${lockFile}: another process took it at the same moment`);
}

function ownerOf(lockFile: string) {
  try {
    const pid = Number(readFileSync(lockFile, "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isRunning(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
