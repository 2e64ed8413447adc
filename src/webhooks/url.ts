// Which webhook URLs we accept and call: http(s) only; in production (allowLoopbackWebhooks = false) never a
// loopback, private, link-local or otherwise internal address, checked at registration (literal addresses,
// `localhost`, and what the name resolves to) and again when sending (the resolved address of every connection).
import dns from 'node:dns';
import net from 'node:net';

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/** True for an address a merchant webhook must never reach in production. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    const lower = address.toLowerCase();
    if (lower.startsWith('::ffff:')) return true; // mapped IPv4 in hex form: refuse rather than decode
    return blocked.check(address, 'ipv6');
  }
  return false;
}

const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();

export type UrlProblem = { code: 'invalid_url' | 'unsupported_scheme' | 'private_address'; detail: string };

/** Syntax and scheme; and, when loopback/private targets are not allowed, the literal host. */
export function checkUrlSyntax(raw: string, allowPrivate: boolean): UrlProblem | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { code: 'invalid_url', detail: 'url must be an absolute http(s) URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { code: 'unsupported_scheme', detail: 'url must use http or https.' };
  if (!url.hostname) return { code: 'invalid_url', detail: 'url must name a host.' };
  if (allowPrivate) return null;
  const host = bareHost(url.hostname);
  if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) {
    return { code: 'private_address', detail: 'url must not point to a loopback, private or link-local address.' };
  }
  return null;
}

/** The full registration check: syntax, then (production) every address the host name resolves to. */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean, timeoutMs = 2000): Promise<UrlProblem | null> {
  const syntax = checkUrlSyntax(raw, allowPrivate);
  if (syntax || allowPrivate) return syntax;
  const host = bareHost(new URL(raw).hostname);
  if (net.isIP(host)) return null;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    dns.promises.lookup(host, { all: true, verbatim: true }).catch(() => []),
    new Promise<dns.LookupAddress[]>((resolve) => {
      timer = setTimeout(() => resolve([]), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  // A name that does not resolve (yet) is accepted: every connection is checked again when sending.
  if (addresses.some((a) => isPrivateAddress(a.address))) {
    return { code: 'private_address', detail: `url's host ${host} resolves to a loopback, private or link-local address.` };
  }
  return null;
}

/** A `lookup` for outgoing connections that refuses internal addresses (undici `connect.lookup`). */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return (callback as (e: Error | null, a: string, f?: number) => void)(err, '', undefined);
    const list = addresses as unknown as dns.LookupAddress[];
    const ok = list.filter((a) => !isPrivateAddress(a.address));
    if (ok.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves to a loopback, private or link-local address`), { code: 'EPRIVATEADDRESS' });
      return (callback as (e: Error | null, a: string, f?: number) => void)(refused, '', undefined);
    }
    if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, ok);
    return (callback as (e: null, a: string, f: number) => void)(null, ok[0].address, ok[0].family);
  });
};
