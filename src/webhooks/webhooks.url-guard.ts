import dns, { type LookupAddress } from 'node:dns';
import net, { BlockList } from 'node:net';

/**
 * SSRF guard for webhook URLs. A subscriber URL is chosen by a merchant, so the service must not
 * become a way to reach its own network: private, loopback, link-local, multicast, reserved and
 * cloud-metadata addresses are refused when the endpoint is registered and again when the relay
 * connects (the relay resolves the name, checks every address and connects to the checked one, so
 * a name that changes its answer between the two checks (DNS rebinding) gets nowhere).
 *
 * Loopback is allowed only when ALLOW_HTTP_WEBHOOKS is on (development and tests), and plain
 * http only to loopback.
 */

export type AddressClass =
  'unspecified' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'multicast' | 'reserved';

const RANGES: [AddressClass, string, number, 'ipv4' | 'ipv6'][] = [
  ['metadata', '169.254.169.254', 32, 'ipv4'], // AWS, GCP, Azure, DigitalOcean…
  ['metadata', '100.100.100.200', 32, 'ipv4'], // Alibaba Cloud
  ['metadata', '192.0.0.192', 32, 'ipv4'], // Oracle Cloud
  ['metadata', 'fd00:ec2::254', 128, 'ipv6'], // AWS over IPv6
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '192.0.2.0', 24, 'ipv4'],
  ['reserved', '192.88.99.0', 24, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '198.51.100.0', 24, 'ipv4'],
  ['reserved', '203.0.113.0', 24, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'], // includes 255.255.255.255
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['reserved', '::', 96, 'ipv6'], // IPv4-compatible (deprecated)
  ['private', '64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['reserved', '100::', 64, 'ipv6'], // discard-only
  ['reserved', '2001::', 23, 'ipv6'], // IETF protocol assignments, Teredo
  ['reserved', '2001:db8::', 32, 'ipv6'], // documentation
  ['private', 'fc00::', 7, 'ipv6'], // unique local
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['private', 'fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['multicast', 'ff00::', 8, 'ipv6'],
];

const LISTS = new Map<AddressClass, BlockList>();
for (const [kind, address, prefix, family] of RANGES) {
  let list = LISTS.get(kind);
  if (!list) {
    list = new BlockList();
    LISTS.set(kind, list);
  }
  list.addSubnet(address, prefix, family);
}
// Checked first, so 169.254.169.254 reads "metadata" rather than "link-local".
const ORDER: AddressClass[] = [
  'metadata',
  'loopback',
  'unspecified',
  'private',
  'link-local',
  'multicast',
  'reserved',
];

/** The 16 bytes of an IPv6 address (with or without an embedded dotted IPv4 tail). */
function ipv6Bytes(address: string): number[] {
  let text = address;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1]!.split('.').map(Number));
    text = `${text.slice(0, -dotted[1]!.length)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const groupsOf = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((g) => parseInt(g, 16));
  const left = groupsOf(head);
  const right = rest === undefined ? [] : groupsOf(rest);
  const groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = groups.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address embedded in an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 IPv6 address. */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  const zero = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12).join('.');
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12))
    return b.slice(12).join('.');
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6).join('.');
  return null;
}

/** The class of a non-public address, or null for a public unicast address. */
export function classifyAddress(address: string): AddressClass | null {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = net.isIP(ip);
  if (family === 0) return 'reserved';
  if (family === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4 !== null) return classifyAddress(v4);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const kind of ORDER) if (LISTS.get(kind)!.check(ip, type)) return kind;
  return null;
}

export interface AddressPolicy {
  /** Loopback addresses are allowed (ALLOW_HTTP_WEBHOOKS). */
  allowLoopback: boolean;
  /** Only loopback addresses are allowed (plain http). */
  loopbackOnly: boolean;
}

/** Why connecting to this address is refused, or null when it is allowed. */
export function refusalFor(address: string, policy: AddressPolicy): string | null {
  const kind = classifyAddress(address);
  if (kind === 'loopback' && policy.allowLoopback) return null;
  if (kind !== null) return `${address} is a ${kind} address`;
  if (policy.loopbackOnly) return `${address} is not a loopback address (plain http is for loopback only)`;
  return null;
}

/** Raised at connect time when a name resolves to a refused address (the request is not sent). */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'RefusedAddressError';
  }
}

/**
 * A `lookup` for net/tls connect (undici `connect.lookup`): resolves the name, refuses the
 * connection if any address is refused, otherwise hands the checked addresses to the socket, which
 * connects to exactly those (no second resolution).
 */
export function guardedLookup(policy: AddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const refusals = addresses.map((a) => refusalFor(a.address, policy)).filter((r) => r !== null);
      if (refusals.length > 0 || addresses.length === 0) {
        const reason = refusals[0] ?? 'no address';
        callback(new RefusedAddressError(`refused to connect: ${hostname} resolves to ${reason}`), '', 0);
        return;
      }
      if (options.all) {
        (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, addresses);
      } else {
        callback(null, addresses[0]!.address, addresses[0]!.family);
      }
    });
  };
}

const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

export interface UrlCheckOptions {
  allowHttp: boolean;
  /** Resolves a name to its addresses (registration time); failures are not fatal (checked again at connect). */
  resolve?: (hostname: string) => Promise<string[]>;
}

export interface UrlProblem {
  detail: string;
}

async function resolveAll(hostname: string): Promise<string[]> {
  const lookup = dns.promises
    .lookup(hostname, { all: true })
    .then((addresses) => addresses.map((a) => a.address));
  const timeout = new Promise<string[]>((resolve) => setTimeout(() => resolve([]), 3000).unref());
  return Promise.race([lookup.catch(() => []), timeout]);
}

/**
 * Checks a subscriber URL at registration. Returns the normalised URL, or a problem to report.
 * A name that does not resolve now is accepted (DNS may be down); the relay checks again when it
 * connects. A name that resolves to a refused address is refused now.
 */
export async function checkEndpointUrl(
  raw: string,
  options: UrlCheckOptions,
): Promise<{ url: string } | UrlProblem> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { detail: 'must be an absolute URL such as https://example.com/webhooks' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { detail: `must be an https URL (not ${url.protocol})` };
  }
  if (url.protocol === 'http:' && !options.allowHttp) return { detail: `must be an https URL ${DEV_HTTP}` };
  if (url.username !== '' || url.password !== '') return { detail: 'must not contain credentials' };
  const policy: AddressPolicy = { allowLoopback: options.allowHttp, loopbackOnly: url.protocol === 'http:' };
  // Loopback is refused unless the server allows it (development): say how.
  const refused = (refusal: string) =>
    ({
      detail: `is refused: ${refusal}${refusal.endsWith(' a loopback address') ? ` ${DEV_LOOPBACK}` : ''}`,
    }) as const;
  const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (net.isIP(hostname) !== 0) {
    const refusal = refusalFor(hostname, policy);
    return refusal ? refused(refusal) : { url: url.href };
  }
  const bare = hostname.replace(/\.$/, '');
  if (METADATA_NAMES.has(bare)) return { detail: `is refused: ${bare} is a cloud metadata address` };
  const isLocalhost = bare === 'localhost' || bare.endsWith('.localhost');
  if (isLocalhost && !options.allowHttp) return refused(`${bare} is a loopback address`);
  if (!isLocalhost && !bare.includes('.')) return { detail: 'must use a fully qualified host name' };
  const addresses = await (options.resolve ?? resolveAll)(bare);
  for (const address of addresses) {
    const refusal = refusalFor(address, policy);
    if (refusal) return refused(`${bare} resolves to ${refusal}`);
  }
  if (policy.loopbackOnly && !isLocalhost && addresses.length === 0) {
    return { detail: 'must be an https URL (plain http is for loopback addresses only)' };
  }
  return { url: url.href };
}

/** Why an http URL is refused by a server that does not allow them (ALLOW_HTTP_WEBHOOKS unset). */
const DEV_HTTP =
  '(plain http is accepted only to a loopback address such as 127.0.0.1 or localhost, and only when the server runs with ALLOW_HTTP_WEBHOOKS=1, for development)';
/** Why a loopback address is refused by such a server. */
const DEV_LOOPBACK = '(accepted only when the server runs with ALLOW_HTTP_WEBHOOKS=1, for development)';
