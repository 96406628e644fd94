/**
 * Any origin works as the base: only whether a target stays on it matters. A fixed one, because
 * the request's Host is the sender's to choose (docs/decisions/0020-same-origin-redirects.md).
 */
const BASE = "http://sakina.invalid";

/** C0 and C1 controls and DEL: a browser drops TAB, CR and LF from a URL, so "/\t/evil" is "//evil". */
function hasControl(value: string) {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/**
 * Where a redirect target taken from a request may lead: a path on this site (with its query and
 * fragment), resolved as a browser would resolve it, or `fallback`. Never another origin, never a
 * Location a browser reads as another origin ("//evil", "/\evil"), never a control character.
 */
export function safeRedirect(value: unknown, fallback = "/"): string {
  if (typeof value !== "string" || !value.startsWith("/") || hasControl(value)) return fallback;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== BASE) return fallback;
  const target = `${url.pathname}${url.search}${url.hash}`;
  // "/..//evil" resolves to the path "//evil": same origin here, another one as a Location header.
  return target.startsWith("//") || target.startsWith("/\\") ? fallback : target;
}
