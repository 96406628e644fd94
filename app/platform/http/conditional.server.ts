/** Entity tags read from one If-None-Match header at most: calendars and browsers send one. */
const MAX_TAGS = 50;
/** A longer header is no cache's: it is ignored, and the full answer sent. */
const MAX_HEADER = 4096;

/**
 * Whether an If-None-Match header names `etag` (or is `*`), compared weakly as RFC 9110 asks for
 * GET: `W/"x"` matches `"x"`. Read in linear time, by splitting on commas and trimming, never by a
 * regular expression: splitting on "optional spaces, a comma, optional spaces" backtracked for
 * half a second on a header of 15 KB of spaces.
 */
export function ifNoneMatchIncludes(header: string | null, etag: string) {
  if (!header || header.length > MAX_HEADER) return false;
  const opaque = etag.startsWith("W/") ? etag.slice(2) : etag;
  for (const entry of header.split(",", MAX_TAGS)) {
    const tag = entry.trim();
    if (tag === "*" || (tag.startsWith("W/") ? tag.slice(2) : tag) === opaque) return true;
  }
  return false;
}
