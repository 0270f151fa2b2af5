/**
 * Cross-origin calls from browsers (the Fetch standard's CORS protocol) for an agent's HTTP handler: the
 * `cors` option of createA2aHttpHandler and of the dual-version handler.
 *
 *   no Origin header                        the request as it is, no CORS headers
 *   preflight (OPTIONS + Access-Control-Request-Method)
 *     from an allowed origin                204 with Allow-Origin, Allow-Methods (GET, POST, DELETE),
 *                                           Allow-Headers, Max-Age; never reaches the handler
 *     from another origin                   403, no CORS headers (the browser then refuses the call)
 *   any other request from an allowed origin  the handler's answer + Allow-Origin, Expose-Headers
 *   from another origin                     the handler's answer, no CORS headers (the page cannot read it)
 *
 * Every answer to a request with an Origin varies by it (Vary: Origin). Allow-Origin is "*" when any origin is
 * allowed and credentials are not, else the request's origin.
 */
import type { CoreHandler } from "../core/server-types.js";
import { headerRecord, varyBy } from "../core/records.js";

export interface CorsOptions {
  /** Origins allowed to call from a page: exact origins ("https://app.example.com"), or "*" for any. */
  readonly origins: readonly string[] | "*";
  /**
   * Request headers a page may send beside the CORS-safelisted ones. Default: Content-Type, Authorization,
   * A2A-Version, A2A-Extensions, X-A2A-Extensions (v0.3's), X-API-Key.
   */
  readonly allowHeaders?: readonly string[];
  /**
   * Answer headers a page may read beside the safelisted ones. Default: A2A-Version, A2A-Extensions,
   * X-A2A-Extensions (v0.3's), Retry-After.
   */
  readonly exposeHeaders?: readonly string[];
  /** Seconds a browser may keep a preflight's answer. Default 600. */
  readonly maxAgeSec?: number;
  /** Let pages send cookies and HTTP authentication (Allow-Credentials); needs listed origins, not "*". */
  readonly credentials?: boolean;
}

/** The request headers a page may send by default: A2A v1.0's, v0.3's extensions header, credentials. */
export const DEFAULT_CORS_ALLOW_HEADERS = [
  "Content-Type",
  "Authorization",
  "A2A-Version",
  "A2A-Extensions",
  "X-A2A-Extensions",
  "X-API-Key",
];
/** The answer headers a page may read by default: the version, either version's extensions echo, Retry-After. */
export const DEFAULT_CORS_EXPOSE_HEADERS = ["A2A-Version", "A2A-Extensions", "X-A2A-Extensions", "Retry-After"];

/** The handler answering CORS as the options say; without options, the handler itself. */
export function withCors(handler: CoreHandler, cors: CorsOptions | undefined): CoreHandler {
  if (!cors) return handler;
  const anyOrigin = cors.origins === "*";
  if (anyOrigin && cors.credentials) throw new Error('cors: credentials need listed origins, not origins: "*"');
  const allowed = anyOrigin ? () => true : (origin: string) => (cors.origins as readonly string[]).includes(origin);
  const allowOrigin = (origin: string) => (anyOrigin ? "*" : origin);
  const credentials: Record<string, string> = cors.credentials ? { "access-control-allow-credentials": "true" } : {};
  const preflight = headerRecord(
    {
      "access-control-allow-methods": "GET, POST, DELETE",
      "access-control-allow-headers": (cors.allowHeaders ?? DEFAULT_CORS_ALLOW_HEADERS).join(", "),
      "access-control-max-age": String(cors.maxAgeSec ?? 600),
    },
    credentials,
  );
  const expose = (cors.exposeHeaders ?? DEFAULT_CORS_EXPOSE_HEADERS).join(", ");
  return async (req) => {
    const origin = req.header("origin");
    if (origin === null) return handler(req);
    const ok = allowed(origin);
    if (req.method === "OPTIONS" && req.header("access-control-request-method") !== null) {
      const headers = ok ? headerRecord({ "access-control-allow-origin": allowOrigin(origin) }, preflight) : {};
      return { status: ok ? 204 : 403, headers: headerRecord(headers, { vary: "Origin" }), body: "" };
    }
    const res = await handler(req);
    if (!ok) return { ...res, headers: varyBy(res.headers, "Origin") };
    const allow = { "access-control-allow-origin": allowOrigin(origin) };
    const exposed = { "access-control-expose-headers": expose };
    return { ...res, headers: headerRecord(varyBy(res.headers, "Origin"), allow, credentials, exposed) };
  };
}
