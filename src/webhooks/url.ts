// Which webhook URLs we accept and call (SSRF protection): http(s) only, and never a loopback, private,
// link-local or otherwise special-use address (the RFC 6890 tables and the IANA special-purpose registries),
// in any of its spellings (IPv4-mapped, IPv4-compatible, NAT64 and 6to4 IPv6 forms included).
// Loopback alone is allowed with ALLOW_LOOPBACK_WEBHOOKS=true (development, tests). Checked at registration
// (literal addresses, `localhost`, and what the name resolves to) and again when sending (the resolved
// address of every connection, so a name re-pointed after registration, i.e. DNS rebinding, gets nowhere).
import dns from 'node:dns';
import net from 'node:net';

/** Special-use IPv4 ranges (RFC 6890 and its updates). */
const SPECIAL_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved
  ['255.255.255.255', 32], // limited broadcast
];

/** Special-use IPv6 ranges (RFC 6890, RFC 4291 and the IANA special-purpose registry). */
const SPECIAL_V6: Array<[string, number]> = [
  ['::', 96], // unspecified (::), loopback (::1) and the deprecated IPv4-compatible ::a.b.c.d
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking ...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address; deprecated)
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const special = new net.BlockList();
for (const [prefix, bits] of SPECIAL_V4) {
  special.addSubnet(prefix, bits, 'ipv4');
  // The same IPv4 range inside the IPv6 forms that carry an IPv4 address to it: IPv4-mapped (::ffff:a.b.c.d,
  // also written ::ffff:7f00:1) and the NAT64 well-known prefix (64:ff9b::a.b.c.d; a public one stays allowed).
  special.addSubnet(`::ffff:${prefix}`, 96 + bits, 'ipv6');
  special.addSubnet(`64:ff9b::${prefix}`, 96 + bits, 'ipv6');
}
for (const [prefix, bits] of SPECIAL_V6) special.addSubnet(prefix, bits, 'ipv6');

const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');
loopback.addAddress('::1', 'ipv6');

/** The address without an IPv6 zone (`fe80::1%eth0`), and its family (0: not an IP address). */
function parse(address: string): { ip: string; family: 0 | 4 | 6 } {
  const ip = address.replace(/%.*$/, '');
  return { ip, family: net.isIP(ip) as 0 | 4 | 6 };
}

/** True for a special-use address (loopback included) that a merchant webhook must never reach. */
export function isPrivateAddress(address: string): boolean {
  const { ip, family } = parse(address);
  return family !== 0 && special.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** True for 127.0.0.0/8 (also IPv4-mapped) and ::1. */
export function isLoopbackAddress(address: string): boolean {
  const { ip, family } = parse(address);
  return family !== 0 && loopback.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** Whether a webhook may not connect to this address; `allowLoopback` lets loopback (only) through. */
export function isRefusedAddress(address: string, allowLoopback: boolean): boolean {
  return isPrivateAddress(address) && !(allowLoopback && isLoopbackAddress(address));
}

const bareHost = (hostname: string) =>
  hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

export type UrlProblem = { code: 'invalid_url' | 'unsupported_scheme' | 'private_address'; detail: string };

const PRIVATE_DETAIL = 'url must not point to a loopback, private, link-local or other special-use address.';

/**
 * Syntax, scheme and the literal host. WHATWG URL parsing has already normalised every IPv4 spelling
 * (`2130706433`, `0x7f.1`, `0177.0.0.1` -> 127.0.0.1) and IPv6 ones (`[::ffff:127.0.0.1]` -> `[::ffff:7f00:1]`).
 */
export function checkUrlSyntax(raw: string, allowLoopback: boolean): UrlProblem | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { code: 'invalid_url', detail: 'url must be an absolute http(s) URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { code: 'unsupported_scheme', detail: 'url must use http or https.' };
  if (!url.hostname) return { code: 'invalid_url', detail: 'url must name a host.' };
  const host = bareHost(url.hostname);
  if ((isLocalhostName(host) && !allowLoopback) || isRefusedAddress(host, allowLoopback)) {
    return { code: 'private_address', detail: PRIVATE_DETAIL };
  }
  return null;
}

/** dns.lookup's shape (the default resolver; tests pass their own to play a DNS rebinding). */
export type Resolver = typeof dns.lookup;

/** The full registration check: syntax, then every address the host name resolves to. */
export async function checkWebhookUrl(
  raw: string,
  allowLoopback: boolean,
  options: { timeoutMs?: number; resolve?: Resolver } = {},
): Promise<UrlProblem | null> {
  const syntax = checkUrlSyntax(raw, allowLoopback);
  if (syntax) return syntax;
  const host = bareHost(new URL(raw).hostname);
  if (net.isIP(host) || isLocalhostName(host)) return null;
  const resolve = options.resolve ?? dns.lookup;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    new Promise<dns.LookupAddress[]>((done) =>
      resolve(host, { all: true }, (err, list) => done(err ? [] : (list as dns.LookupAddress[]))),
    ),
    new Promise<dns.LookupAddress[]>((done) => {
      timer = setTimeout(() => done([]), options.timeoutMs ?? 2000);
    }),
  ]).finally(() => clearTimeout(timer));
  // A name that does not resolve (yet) is accepted: every connection is checked again when sending.
  if (addresses.some((a) => isRefusedAddress(a.address, allowLoopback))) {
    return {
      code: 'private_address',
      detail: `url's host ${host} resolves to a loopback, private, link-local or other special-use address.`,
    };
  }
  return null;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for outgoing connections (undici `connect.lookup`) that drops refused addresses from the answer
 * and fails with EPRIVATEADDRESS when none is left. Literal IP hosts never reach a lookup: checkUrlSyntax covers them.
 */
export function guardedLookup(allowLoopback: boolean, resolve: Resolver = dns.lookup): net.LookupFunction {
  return (hostname, options, callback) => {
    const cb = callback as unknown as LookupCallback;
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return cb(err, '', undefined);
      const ok = (addresses as dns.LookupAddress[]).filter((a) => !isRefusedAddress(a.address, allowLoopback));
      if (ok.length === 0) {
        const refused = Object.assign(
          new Error(`${hostname} resolves to a loopback, private, link-local or other special-use address`),
          {
            code: 'EPRIVATEADDRESS',
          },
        );
        return cb(refused, '', undefined);
      }
      if ((options as dns.LookupOptions).all) return cb(null, ok);
      return cb(null, ok[0].address, ok[0].family);
    });
  };
}
