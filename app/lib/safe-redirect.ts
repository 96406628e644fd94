/** Only same-site paths: never "//evil.example" or "https://…", which would be an open redirect. */
export function safeRedirectPath(value: unknown, fallback = "/") {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) {
    return fallback;
  }
  return value;
}
