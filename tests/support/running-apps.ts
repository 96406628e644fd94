/**
 * The in-process apps (app-in-process.ts) started and not stopped yet, with the test file that
 * started each: a worker runs file after file (vitest.config's isolate: false), so an app a file
 * left running would go on placing calls and logging into the next file's tests. setup.ts fails
 * the file that leaves one.
 */
export const runningApps = new Map<object, { file: string; stop(): Promise<void> }>();
