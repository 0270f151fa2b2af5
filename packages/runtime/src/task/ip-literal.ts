/**
 * Whether a text is an IP address, without node:net, so that the push screening loads on every runtime. The
 * grammar read (what node:net's isIP accepts; test/ip-literal.test.ts compares the two):
 *
 *   ipv4  = dec "." dec "." dec "." dec           dec = 0-255 written without a leading zero ("0" itself is one)
 *   ipv6  = groups [ "%" zone ]                   zone = one or more of A-Z a-z 0-9 - . : (an interface)
 *   groups: eight hex groups of 1-4 digits joined by ":", the last two of which may be one ipv4; or fewer,
 *           with one "::" standing for one or more zero groups (at the start, inside or at the end)
 */

const DEC = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;
const HEX = /^[0-9A-Fa-f]{1,4}$/;
const ZONE = /^[0-9A-Za-z.:-]+$/;

export function isIPv4(text: string): boolean {
  const parts = text.split(".");
  return parts.length === 4 && parts.every((p) => DEC.test(p));
}

/** The number of 16-bit groups a run of ":"-joined groups stands for, or -1 when one is no group. */
function groupCount(run: string, last: boolean): number {
  if (run === "") return 0;
  const groups = run.split(":");
  let count = 0;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!;
    if (HEX.test(g)) count += 1;
    else if (last && i === groups.length - 1 && isIPv4(g)) count += 2;
    else return -1;
  }
  return count;
}

export function isIPv6(text: string): boolean {
  const zone = text.indexOf("%");
  if (zone !== -1 && !ZONE.test(text.slice(zone + 1))) return false;
  const address = zone === -1 ? text : text.slice(0, zone);
  const halves = address.split("::");
  if (halves.length > 2) return false;
  if (halves.length === 1) return groupCount(address, true) === 8;
  const head = groupCount(halves[0]!, false);
  const tail = groupCount(halves[1]!, true);
  return head >= 0 && tail >= 0 && head + tail <= 7;
}

/** 4 or 6 for an IP address, else 0 (as node:net's isIP). */
export function ipFamily(text: string): 0 | 4 | 6 {
  return isIPv4(text) ? 4 : isIPv6(text) ? 6 : 0;
}
