import ipaddr from 'ipaddr.js';

/**
 * How much of the public internet a list of address ranges covers, counted the way Fastify's
 * `trustProxy` (@fastify/proxy-addr on ipaddr.js) matches a client against it: an IPv4 client
 * (or an IPv4-mapped IPv6 one, `::ffff:a.b.c.d`) matches the IPv4 ranges and the IPv4-mapped ranges
 * of /96 or longer; a native IPv6 client matches the other IPv6 ranges. The ranges are merged, so
 * overlaps count once and a /0 split into halves counts as a whole.
 */

/** A closed interval of an address space (IPv4: 32 bits, IPv6: 128 bits). */
interface Interval {
  readonly first: bigint;
  readonly last: bigint;
}

function valueOf(bytes: number[]): bigint {
  return bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

function cidr(network: bigint, hostBits: number): Interval {
  const first = (network >> BigInt(hostBits)) << BigInt(hostBits);
  return { first, last: first + (1n << BigInt(hostBits)) - 1n };
}

/** Where `address` or `address/bits` matches clients: IPv4, IPv6, or nowhere. */
function rangeOf(entry: string): { ipv4: Interval } | { ipv6: Interval } | null {
  const slash = entry.lastIndexOf('/');
  const address = ipaddr.parse(slash === -1 ? entry : entry.slice(0, slash));
  if (address.kind() === 'ipv4') {
    const bits = slash === -1 ? 32 : Number(entry.slice(slash + 1));
    return { ipv4: cidr(valueOf(address.toByteArray()), 32 - bits) };
  }
  const ipv6 = address as ipaddr.IPv6;
  const bits = slash === -1 ? 128 : Number(entry.slice(slash + 1));
  if (!ipv6.isIPv4MappedAddress()) return { ipv6: cidr(valueOf(ipv6.toByteArray()), 128 - bits) };
  // An IPv4-mapped range holds IPv4 clients when its prefix covers the ::ffff: marker, else nobody.
  return bits >= 96 ? { ipv4: cidr(valueOf(ipv6.toIPv4Address().toByteArray()), 128 - bits) } : null;
}

/** Sorted, merged intervals (adjacent ones joined). */
function merged(intervals: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const next of [...intervals].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0))) {
    const last = out.at(-1);
    if (last && next.first <= last.last + 1n) {
      if (next.last > last.last) out[out.length - 1] = { first: last.first, last: next.last };
    } else out.push(next);
  }
  return out;
}

/** How many addresses of merged `a` are not in merged `b`. */
function sizeOutside(a: readonly Interval[], b: readonly Interval[]): bigint {
  let total = 0n;
  for (const range of a) {
    let size = range.last - range.first + 1n;
    for (const hole of b) {
      const first = hole.first > range.first ? hole.first : range.first;
      const last = hole.last < range.last ? hole.last : range.last;
      if (first <= last) size -= last - first + 1n;
    }
    total += size;
  }
  return total;
}

/** IPv4 space that is not reachable public unicast (RFC 6890 and the multicast and reserved blocks). */
const NOT_PUBLIC_IPV4 = merged(
  [
    '0.0.0.0/8',
    '10.0.0.0/8',
    '100.64.0.0/10',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.0.2.0/24',
    '192.88.99.0/24',
    '192.168.0.0/16',
    '198.18.0.0/15',
    '198.51.100.0/24',
    '203.0.113.0/24',
    '224.0.0.0/3',
  ].map((block) => {
    const [network = '', bits = ''] = block.split('/');
    return cidr(valueOf(ipaddr.parse(network).toByteArray()), 32 - Number(bits));
  }),
);
/** Public IPv6 is the global unicast block 2000::/3, less its documentation prefix 2001:db8::/32. */
const IPV6_GLOBAL = cidr(0x2n << 124n, 125);
const IPV6_DOCUMENTATION = [cidr(0x20010db8n << 96n, 96)];

export interface PublicCoverage {
  /** Public IPv4 addresses the ranges cover. */
  readonly ipv4: bigint;
  /** Public (global unicast) IPv6 addresses the ranges cover. */
  readonly ipv6: bigint;
}

/**
 * The public addresses that `entries` (IP addresses and CIDR ranges, as TRUST_PROXY takes them;
 * names such as `loopback` are private ranges and count nothing) cover, IPv4 and IPv6 apart.
 */
export function publicCoverage(entries: readonly string[]): PublicCoverage {
  const ipv4: Interval[] = [];
  const ipv6: Interval[] = [];
  for (const entry of entries) {
    if (!ipaddr.isValid(entry.split('/')[0] ?? '')) continue;
    const range = rangeOf(entry);
    if (range && 'ipv4' in range) ipv4.push(range.ipv4);
    else if (range) ipv6.push(range.ipv6);
  }
  const within = (ranges: Interval[], block: Interval): Interval[] =>
    merged(ranges).flatMap((range) => {
      const first = range.first > block.first ? range.first : block.first;
      const last = range.last < block.last ? range.last : block.last;
      return first <= last ? [{ first, last }] : [];
    });
  return {
    ipv4: sizeOutside(merged(ipv4), NOT_PUBLIC_IPV4),
    ipv6: sizeOutside(within(ipv6, IPV6_GLOBAL), IPV6_DOCUMENTATION),
  };
}
