/**
 * The origins a client's credentials may go to (option credentialOrigins of createClientForCard): a card names
 * where its interfaces and token endpoint are, and a client that trusts the card less than its own list sends
 * credentials only there.
 *
 *   entry   an absolute http: or https: URL with nothing after its host and port but "/": "https://agent.example",
 *           "https://agent.example:8443/"; anything else (a path, a query, user info, a "*") is a TypeError naming
 *           the entry
 *   match   a URL matches an entry with the same scheme, host and port, the default port (80, 443) filled in,
 *           the host as the WHATWG URL parser writes it (lower case, IDNA); a bare gRPC host:port (no scheme,
 *           as cards give it) is taken with the scheme the client will use for it (https with TLS), and must
 *           name its port
 */

/** A URL's scheme, host and port, the default port filled in; undefined for a URL that does not parse. */
function partsOf(url: string): { readonly scheme: string; readonly hostPort: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const scheme = parsed.protocol.slice(0, -1);
  const port = parsed.port !== "" ? parsed.port : scheme === "https" ? "443" : scheme === "http" ? "80" : "";
  return { scheme, hostPort: `${parsed.hostname}:${port}` };
}

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export class OriginList {
  /** Each entry as "scheme://host:port". */
  readonly #entries: ReadonlySet<string>;

  /** Reads the entries (none: credentials go nowhere); a TypeError names the first that is no origin (header). */
  constructor(
    readonly entries: readonly string[],
    option = "credentialOrigins",
  ) {
    const all = new Set<string>();
    for (const entry of entries) {
      const parts = partsOf(entry);
      const bare = /^[a-z]+:\/\/[^/?#@*]+\/?$/i.test(entry);
      if (parts === undefined || !bare || (parts.scheme !== "http" && parts.scheme !== "https")) {
        throw new TypeError(
          `${option}: ${JSON.stringify(entry)} is no origin: write an http: or https: URL with a host and no path, ` +
            "user info or wildcard",
        );
      }
      all.add(`${parts.scheme}://${parts.hostPort}`);
    }
    this.#entries = all;
  }

  /**
   * Whether credentials may go to `url`: an absolute URL, or a bare gRPC host:port reached with `bareScheme`
   * (https when the connection is TLS).
   */
  allows(url: string, bareScheme: "http" | "https"): boolean {
    // A bare host:port must name its port: the scheme's default would stand in for it otherwise.
    const absolute = HAS_SCHEME.test(url) ? url : /:\d+$/.test(url) ? `${bareScheme}://${url}` : undefined;
    const parts = absolute === undefined ? undefined : partsOf(absolute);
    return parts !== undefined && this.#entries.has(`${parts.scheme}://${parts.hostPort}`);
  }

  /** The entries as given, for messages. */
  toString(): string {
    return this.entries.length > 0 ? this.entries.join(", ") : "none listed";
  }
}
