import { fetchFrom } from "./fetch-from";

/**
 * A tiny browser-like HTTP client for tests: keeps cookies, reads the CSRF token from pages, and
 * posts forms or JSON the way the app's own pages and script clients do.
 */
export function httpClient(baseUrl: string, options: { forwardedFor?: string; localAddress?: string } = {}) {
  const send = options.localAddress ? fetchFrom(options.localAddress) : fetch;
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const store = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      if (/max-age=0/i.test(line) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
  };
  async function request(path: string, init: RequestInit = {}) {
    const response = await send(baseUrl + path, {
      redirect: "manual",
      ...init,
      headers: {
        ...(init.headers as Record<string, string>),
        Cookie: cookieHeader(),
        // Against a server started with TRUST_PROXY=1 (one trusted hop: the test machine), each client can be a different visitor.
        ...(options.forwardedFor ? { "X-Forwarded-For": options.forwardedFor } : {}),
      },
    });
    store(response);
    return response;
  }
  async function csrfToken(path = "/contact") {
    const html = await (await request(path)).text();
    const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!token) throw new Error(`no CSRF token on ${path}`);
    return token;
  }
  return {
    jar,
    get: (path: string) => request(path),
    async postForm(path: string, fields: Record<string, string>, options: { tokenFrom?: string } = {}) {
      const token = await csrfToken(options.tokenFrom ?? path.split("?")[0]);
      return request(path, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf: token, ...fields }),
      });
    },
    /** A multipart form (a file upload) as the page's script sends it, with the CSRF token read from `tokenFrom`. */
    async postMultipart(path: string, form: FormData, options: { tokenFrom: string }) {
      form.set("csrf", await csrfToken(options.tokenFrom));
      return request(path, { method: "POST", body: form });
    },
    postJson: (path: string, body: unknown) =>
      request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
  };
}
