/**
 * A failure copied down to what may be shown and kept, for a client error's cause: each error along the cause
 * chain (at most five deep) becomes a plain Error with its message (rewritten by `message`), name and string
 * `code`; any other member, and a cause that is no Error, is left behind. Used where a failure may hold a
 * secret: fetch's message naming a URL with a query API key (http/client-http.ts), and oauth4webapi's errors,
 * which hang the token endpoint's answer on themselves (client/oauth-client-credentials.ts).
 */

/** `e` as plain Errors along its cause chain, each message passed through `message`; undefined for no Error. */
export function plainErrorChain(e: unknown, message: (text: string) => string = (text) => text, depth = 0): unknown {
  if (!(e instanceof Error)) return undefined;
  const inner = depth < 4 && e.cause instanceof Error ? { cause: plainErrorChain(e.cause, message, depth + 1) } : {};
  const copy = Object.assign(new Error(message(e.message), inner), { name: e.name });
  const code = (e as { code?: unknown }).code;
  return typeof code === "string" ? Object.assign(copy, { code }) : copy;
}
