/**
 * Interface selection from an agent card (spec §8.3.2, §3.6.2; I9, I10).
 *
 * The interfaces are read in the card's order: a v1.0 card's
 * `supportedInterfaces`, or a v0.3 card's `url` + `preferredTransport`
 * (default JSONRPC) followed by `additionalInterfaces`, all at the card's
 * `protocolVersion`. The first entry whose binding the client supports and
 * whose Major.Minor version it speaks wins; a card listing one binding twice
 * (0.3 and 1.0) is thus chosen by version, not position. Only an absolute
 * http: or https: URL is ever chosen (for gRPC also a bare host:port): a
 * card cannot point the client, and the credentials it sends, at a data:,
 * file: or javascript: URL. With `secure`, for a client that sends
 * credentials in its requests, only an interface they cannot leave in clear
 * text is chosen (S10 §7.1: production deployments MUST use encrypted
 * communication): an https: URL, a bare gRPC host:port when the connection
 * is TLS (a client certificate), or a loopback host (localhost, 127.0.0.0/8,
 * ::1), where nothing crosses a network. With `origins`, for a client that
 * sends credentials only where it was told, only an interface at one of them
 * (origin-list.ts).
 */

export interface CardInterface {
  readonly url: string;
  readonly binding: string;
  /** Major.Minor */
  readonly protocolVersion: string;
  readonly tenant: string | undefined;
}

const majorMinor = (v: unknown): string => {
  const m = /^(\d+)\.(\d+)/.exec(typeof v === "string" ? v.trim() : "");
  return m ? `${Number(m[1])}.${Number(m[2])}` : "";
};

export function cardInterfaces(card: unknown): CardInterface[] {
  const c = (card ?? {}) as Record<string, unknown>;
  const supported = c["supportedInterfaces"];
  if (Array.isArray(supported) && supported.length > 0) {
    return supported.flatMap((i: Record<string, unknown>) =>
      typeof i?.["url"] === "string"
        ? [
            {
              url: i["url"],
              binding: String(i["protocolBinding"] ?? "").toUpperCase(),
              protocolVersion: majorMinor(i["protocolVersion"]) || "0.3",
              tenant: typeof i["tenant"] === "string" && i["tenant"] !== "" ? i["tenant"] : undefined,
            },
          ]
        : [],
    );
  }
  const version = majorMinor(c["protocolVersion"]) || "0.3";
  const out: CardInterface[] = [];
  if (typeof c["url"] === "string") {
    out.push({
      url: c["url"],
      binding: String(c["preferredTransport"] ?? "JSONRPC").toUpperCase(),
      protocolVersion: version,
      tenant: undefined,
    });
  }
  for (const i of Array.isArray(c["additionalInterfaces"])
    ? (c["additionalInterfaces"] as Record<string, unknown>[])
    : []) {
    if (typeof i?.["url"] !== "string") continue;
    const entry = {
      url: i["url"],
      binding: String(i["transport"] ?? "").toUpperCase(),
      protocolVersion: version,
      tenant: undefined,
    };
    if (!out.some((o) => o.url === entry.url && o.binding === entry.binding)) out.push(entry);
  }
  return out;
}

/** What a client can use: its bindings and versions and, when it sends credentials, only a secure URL. */
export interface InterfaceNeeds {
  readonly bindings: readonly string[];
  readonly versions: readonly string[];
  /** Credentials go in the requests: only an interface that keeps them out of clear text (module rules). */
  readonly secure?: { readonly tls: boolean };
  /** Credentials go only to these origins: only an interface at one of them (a bare host:port taken as bareScheme). */
  readonly origins?: { readonly list: OriginCheck; readonly bareScheme: "http" | "https" };
}

/** Where credentials may go, as origin-list.ts's OriginList answers it. */
export interface OriginCheck {
  /** Whether credentials may go to `url`: an absolute URL, or a bare host:port reached with `bareScheme`. */
  allows(url: string, bareScheme: "http" | "https"): boolean;
}

export function selectInterface(card: unknown, needs: InterfaceNeeds): CardInterface | undefined {
  return cardInterfaces(card).find(
    (i) =>
      needs.bindings.includes(i.binding) &&
      needs.versions.includes(i.protocolVersion) &&
      reachable(i) &&
      (needs.secure === undefined || secure(i, needs.secure.tls)) &&
      (needs.origins === undefined || needs.origins.list.allows(i.url, needs.origins.bareScheme)),
  );
}

/** An absolute http(s) URL; for gRPC also a bare host and port (`127.0.0.1:50051`), which cards often give. */
function reachable(i: CardInterface): boolean {
  if (/^https?:\/\/[^/]/i.test(i.url)) return true;
  return i.binding === "GRPC" && /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d+)?$/i.test(i.url);
}

/** Whether requests to the interface keep their credentials out of clear text (module rules). */
function secure(i: CardInterface, tls: boolean): boolean {
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(i.url) ? i.url : `${tls ? "https" : "http"}://${i.url}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.protocol === "https:" || isLoopback(parsed.hostname);
}

/** localhost, 127.0.0.0/8 or ::1, as URL writes a hostname. */
const isLoopback = (host: string) =>
  host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
