/**
 * Classifies an IP address for webhook screening (url-screen.ts): an address
 * is either public (undefined) or falls in a range a push delivery must not
 * reach, given as
 *
 *   { range, privateNetwork, cloudMetadata }
 *                               range: e.g. "loopback", "cloud metadata"
 *                               privateNetwork: true when the sender's
 *                               allowPrivateNetworks option lifts the refusal
 *                               cloudMetadata: true for a cloud metadata
 *                               address (allow-list.ts lifts it only when
 *                               listed exactly)
 *
 * Ranges (first match wins, so single metadata addresses come before the
 * blocks that hold them):
 *   cloud metadata  169.254.169.254, 169.254.170.2, 100.100.100.200, 168.63.129.16, fd00:ec2::254   (never lifted)
 *                   and AWS's EKS Pod Identity Agent, 169.254.170.23 and fd00:ec2::23 (Amazon EKS User Guide,
 *                   "Set up the Amazon EKS Pod Identity Agent": it hands out credentials)
 *   unspecified     0.0.0.0/8, ::/128                                                                (never lifted)
 *   multicast       224.0.0.0/4, ff00::/8; broadcast 255.255.255.255; reserved 240.0.0.0/4          (never lifted)
 *   loopback        127.0.0.0/8, ::1
 *   private         10/8, 172.16/12, 192.168/16 (RFC 1918), fc00::/7 (unique local), fec0::/10 (site-local)
 *   link-local      169.254.0.0/16, fe80::/10
 *   shared (CGNAT)  100.64.0.0/10
 *   special         192.0.0.0/24 (IETF protocol assignments), 198.18.0.0/15 (benchmarking), 100::/64
 *                   (discard-only), 2001::/32 (Teredo: it carries an IPv4 address and a NAT's port, and
 *                   reaches whatever relay is configured)
 * IPv6 forms that carry an IPv4 address are judged by that address:
 * IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48,
 * 6to4 2002::/16. The deprecated IPv4-compatible form ::/96 is refused whatever it carries.
 * Addresses are compared as bigints; the text is parsed here (node:net only validates it). ipValue and
 * embeddedV4 give that reading to allow-list.ts, which matches addresses against the sender's networks.
 */
import { isIPv4, isIPv6 } from "./ip-literal.js";

export interface BlockedRange {
  /** What the address is, e.g. "loopback" or "IPv4-mapped private". */
  readonly range: string;
  /** True when allowPrivateNetworks lifts the refusal. */
  readonly privateNetwork: boolean;
  /** True for a cloud metadata address (plain, or carried in an IPv6 one). */
  readonly cloudMetadata: boolean;
}

/** An IP address as a number: 32 bits for IPv4, 128 for IPv6. */
export interface IpValue {
  readonly bits: 32 | 128;
  readonly value: bigint;
}

type Rule = readonly [network: string, prefix: number, range: string, privateNetwork: boolean];

const METADATA = "cloud metadata";

const V4_RULES: readonly Rule[] = [
  ["169.254.169.254", 32, METADATA, false],
  ["169.254.170.2", 32, METADATA, false],
  ["169.254.170.23", 32, METADATA, false],
  ["100.100.100.200", 32, METADATA, false],
  ["168.63.129.16", 32, METADATA, false],
  ["0.0.0.0", 8, "unspecified", false],
  ["255.255.255.255", 32, "broadcast", false],
  ["224.0.0.0", 4, "multicast", false],
  ["240.0.0.0", 4, "reserved", false],
  ["127.0.0.0", 8, "loopback", true],
  ["10.0.0.0", 8, "private", true],
  ["172.16.0.0", 12, "private", true],
  ["192.168.0.0", 16, "private", true],
  ["169.254.0.0", 16, "link-local", true],
  ["100.64.0.0", 10, "shared address space (CGNAT)", true],
  ["192.0.0.0", 24, "IETF protocol assignments", true],
  ["198.18.0.0", 15, "benchmarking", true],
];

const V6_RULES: readonly Rule[] = [
  ["fd00:ec2::254", 128, METADATA, false],
  ["fd00:ec2::23", 128, METADATA, false],
  ["::", 128, "unspecified", false],
  ["::1", 128, "loopback", true],
  ["ff00::", 8, "multicast", false],
  ["fc00::", 7, "unique local (private)", true],
  ["fe80::", 10, "link-local", true],
  ["fec0::", 10, "site-local (private)", true],
  ["100::", 64, "discard-only", false],
  ["2001::", 32, "Teredo", true],
];

/** IPv6 prefixes whose address embeds an IPv4 one: [network, prefix, name, bit offset of the IPv4 from the right]. */
const V6_EMBEDDING: readonly (readonly [string, number, string, number])[] = [
  ["::ffff:0:0", 96, "IPv4-mapped", 0],
  ["::ffff:0:0:0", 96, "IPv4-translated", 0],
  ["64:ff9b::", 96, "NAT64", 0],
  ["64:ff9b:1::", 48, "NAT64", 0],
  ["2002::", 16, "6to4", 80],
];

function parseV4(text: string): bigint {
  return text.split(".").reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function v6Groups(part: string): number[] {
  if (part === "") return [];
  const groups: number[] = [];
  for (const piece of part.split(":")) {
    if (piece.includes(".")) {
      const v4 = Number(parseV4(piece));
      groups.push(v4 >>> 16, v4 & 0xffff);
    } else groups.push(Number.parseInt(piece, 16));
  }
  return groups;
}

function parseV6(text: string): bigint {
  const bare = text.split("%")[0] ?? text;
  const [head = "", tail] = bare.split("::");
  const left = v6Groups(head);
  const right = tail === undefined ? [] : v6Groups(tail);
  const groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** Whether addr lies in network/prefix, both numbers of `bits` bits. */
export function inRange(addr: bigint, bits: number, network: bigint, prefix: number): boolean {
  const shift = BigInt(bits - prefix);
  return addr >> shift === network >> shift;
}

function match(
  addr: bigint,
  bits: number,
  rules: readonly Rule[],
  parse: (s: string) => bigint,
): BlockedRange | undefined {
  for (const [network, prefix, range, privateNetwork] of rules) {
    if (inRange(addr, bits, parse(network), prefix))
      return { range, privateNetwork, cloudMetadata: range === METADATA };
  }
  return undefined;
}

/** The IPv4 address an IPv6 one carries (V6_EMBEDDING) and the name of the form, or undefined. */
function embedding(addr: bigint): { readonly name: string; readonly v4: bigint } | undefined {
  for (const [network, prefix, name, offset] of V6_EMBEDDING) {
    if (inRange(addr, 128, parseV6(network), prefix)) return { name, v4: (addr >> BigInt(offset)) & 0xffffffffn };
  }
  return undefined;
}

/** The IPv4 address (as a number) an IPv6 address carries: IPv4-mapped, IPv4-translated, NAT64, 6to4. */
export function embeddedV4(v6: bigint): bigint | undefined {
  return embedding(v6)?.v4;
}

function classifyV6(addr: bigint): BlockedRange | undefined {
  const direct = match(addr, 128, V6_RULES, parseV6);
  if (direct) return direct;
  const carried = embedding(addr);
  if (carried) {
    const inner = match(carried.v4, 32, V4_RULES, parseV4);
    return inner ? { ...inner, range: `${carried.name} ${inner.range}` } : undefined;
  }
  if (inRange(addr, 128, 0n, 96)) {
    return { range: "IPv4-compatible (deprecated)", privateNetwork: false, cloudMetadata: false };
  }
  return undefined;
}

/**
 * The number of an IP address (IPv4 dotted, or IPv6 without brackets or zone), undefined for other text.
 * isIPv4/isIPv6 (ip-literal.ts) decide what is an address; the text is then read here.
 */
export function ipValue(ip: string): IpValue | undefined {
  if (isIPv4(ip)) return { bits: 32, value: parseV4(ip) };
  if (isIPv6(ip) && !ip.includes("%")) return { bits: 128, value: parseV6(ip) };
  return undefined;
}

/**
 * The blocked range an IP address (IPv4 dotted, or IPv6 without brackets) falls in, undefined when it is
 * public. Throws a TypeError for text that is no IP address.
 */
export function blockedRange(ip: string): BlockedRange | undefined {
  if (isIPv4(ip)) return match(parseV4(ip), 32, V4_RULES, parseV4);
  if (isIPv6(ip)) return classifyV6(parseV6(ip));
  throw new TypeError(`blockedRange: "${ip}" is no IP address`);
}
