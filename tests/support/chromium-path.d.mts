/** See chromium-path.mjs. */
export function chromiumPath(options?: { fullBrowser?: boolean }): string | null;
