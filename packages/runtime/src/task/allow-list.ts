/**
 * The allow list of a push sender (url-screen.ts): the webhook hosts and networks an operator lets deliveries
 * reach although the screening would refuse them (S10 §13.2, specification.md line 3117: "Implement URL
 * allowlists where appropriate"). Read once, when the sender is created:
 *
 *   hosts      host names or IP literals, matched exactly against the URL's host, case-insensitive, a trailing
 *              dot ignored, IPv6 with or without brackets; each is read as a URL host is (IDNA to punycode,
 *              "127.1" to "127.0.0.1"), so an entry matches the URLs that name the same host.
 *              Refused: empty, or holding anything but a host (scheme, port, path, user, space, control).
 *   networks   CIDR "address/prefix": IPv4 "10.0.0.0/8" (prefix 0-32), IPv6 "fd00::/8" (0-128, no zone), or a
 *              bare address (a /32 or /128); an IPv4-mapped IPv6 network (::ffff:10.0.0.0/104) is the IPv4 network
 *              it maps. Refused: text that is no address, a prefix out of range or not in decimal, host bits
 *              set ("10.0.0.1/8": write 10.0.0.0/8).
 * A bad entry is a RangeError naming it, its list and why, thrown by createPushSender.
 *
 * Matching an address (every address a webhook host resolves to is matched, url-screen.ts):
 *   - it lies in a network of its own family; an IPv6 address carrying an IPv4 one (IPv4-mapped, NAT64, 6to4:
 *     ip-ranges.ts) also matches the IPv4 networks by that IPv4 address, as the screening judges it by it;
 *   - a cloud metadata address (ip-ranges.ts) matches only a network that is exactly that one address
 *     (169.254.169.254/32 or a bare 169.254.169.254): a broad entry such as 169.254.0.0/16, listed for a
 *     link-local segment, must not open the metadata service of the machine by the way.
 */
import { isIPv6 } from "./ip-literal.js";
import { type BlockedRange, embeddedV4, inRange, ipValue } from "./ip-ranges.js";

/** The lists as given to createPushSender (allowHosts, allowNetworks). */
export interface AllowListInput {
  readonly allowHosts?: readonly string[] | undefined;
  readonly allowNetworks?: readonly string[] | undefined;
}

interface Network {
  readonly text: string;
  readonly bits: 32 | 128;
  readonly value: bigint;
  readonly prefix: number;
}

/** The allow list, read: hosts normalized as url-screen.ts compares them, networks as numbers. */
export interface AllowList {
  readonly hosts: ReadonlySet<string>;
  readonly networks: readonly Network[];
}

/** A host as compared here: lower case, no brackets, no trailing dot, IPv6 in its canonical form. */
export function normalizeHost(host: string): string {
  const bare = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.+$/, "");
  if (!isIPv6(bare)) return bare;
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return bare;
  }
}

const badEntry = (list: string, entry: string, why: string) =>
  new RangeError(`createPushSender: ${list} entry ${JSON.stringify(entry)} ${why}`);

/** What may not appear in a host entry: URL delimiters, "%", whitespace and controls (a bracketed IPv6 apart). */
const NOT_A_HOST = /[/?#@\\%\s\p{Cc}]/u;

function readHost(entry: string): string {
  const bracketed = /^\[.*\]$/.test(entry);
  if (entry === "" || NOT_A_HOST.test(entry) || (!bracketed && entry.includes(":") && !isIPv6(entry))) {
    throw badEntry("allowHosts", entry, "is not a host name or IP address (no scheme, port, path or spaces)");
  }
  const literal = bracketed || isIPv6(entry) ? `[${entry.replace(/^\[(.*)\]$/, "$1")}]` : entry;
  let hostname: string;
  try {
    hostname = new URL(`http://${literal}/`).hostname;
  } catch {
    throw badEntry("allowHosts", entry, "is not a host name or IP address");
  }
  const host = normalizeHost(hostname);
  if (host === "") throw badEntry("allowHosts", entry, "names no host");
  return host;
}

function readNetwork(entry: string): Network {
  const slash = entry.indexOf("/");
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const ip = ipValue(address);
  if (ip === undefined) {
    throw badEntry("allowNetworks", entry, "is not a CIDR network (IPv4 10.0.0.0/8 or IPv6 fd00::/8, no zone)");
  }
  const prefixText = slash < 0 ? String(ip.bits) : entry.slice(slash + 1);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix <= ip.bits)) {
    throw badEntry("allowNetworks", entry, `has prefix ${JSON.stringify(prefixText)}, not a number 0-${ip.bits}`);
  }
  const hostBits = BigInt(ip.bits - prefix);
  if ((ip.value >> hostBits) << hostBits !== ip.value) {
    throw badEntry("allowNetworks", entry, `has host bits set past /${prefix}`);
  }
  // An IPv4-mapped network (::ffff:0:0/96 and within) is kept as the IPv4 network it maps.
  if (ip.bits === 128 && prefix >= 96 && ip.value >> 32n === 0xffffn) {
    return { text: entry, bits: 32, value: ip.value & 0xffffffffn, prefix: prefix - 96 };
  }
  return { text: entry, bits: ip.bits, value: ip.value, prefix };
}

/** Reads both lists; throws a RangeError naming the first bad entry. */
export function readAllowList(input: AllowListInput): AllowList {
  return {
    hosts: new Set((input.allowHosts ?? []).map(readHost)),
    networks: (input.allowNetworks ?? []).map(readNetwork),
  };
}

/**
 * The network of the list that lets this resolved address through, given the range the screening put it in
 * (undefined when public); undefined when none does.
 */
export function allowingNetwork(list: AllowList, address: string, blocked: BlockedRange): string | undefined {
  if (list.networks.length === 0) return undefined;
  const ip = ipValue(address.split("%")[0] ?? address);
  if (ip === undefined) return undefined;
  const carried = ip.bits === 128 ? embeddedV4(ip.value) : undefined;
  const candidates = carried === undefined ? [ip] : [ip, { bits: 32 as const, value: carried }];
  for (const net of list.networks) {
    if (blocked.cloudMetadata && net.prefix !== net.bits) continue;
    for (const { bits, value } of candidates) {
      if (bits === net.bits && inRange(value, bits, net.value, net.prefix)) return net.text;
    }
  }
  return undefined;
}
