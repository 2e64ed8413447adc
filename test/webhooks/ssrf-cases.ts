// The SSRF cases both tiers check: addresses and URL spellings no webhook may reach, public ones, and stub resolvers
// (a name rebound to loopback, a name with a public address). Used by test/webhooks/url.unit.test.ts and
// test/webhooks/security-ssrf.test.ts.
import dns from 'node:dns';
import type { Resolver } from '../../src/webhooks/url.js';

/** Addresses no webhook may reach, one or more per special-use range and spelling. */
export const REFUSED_ADDRESSES = [
  // IPv4 (RFC 6890)
  '0.0.0.0',
  '0.255.255.255',
  '10.0.0.1',
  '10.255.255.255',
  '100.64.0.1',
  '100.127.255.254',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254',
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.8',
  '192.0.2.1',
  '192.88.99.1',
  '192.168.1.1',
  '198.18.0.1',
  '198.19.255.255',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  // IPv6
  '::',
  '::1',
  '0:0:0:0:0:0:0:1',
  'fc00::1',
  'fd12:3456::1',
  'fe80::1',
  'fe80::1%eth0',
  'febf::1',
  'fec0::1',
  'feff::1',
  'ff02::1',
  '100::1',
  '2001::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  '2001:1ff::1',
  '2001:db8::1',
  '2002:c000:0204::1',
  '2002:0a00:0001::1',
  '3fff::1',
  '5f00::1',
  '64:ff9b:1::1',
  // IPv4 inside IPv6: mapped (dotted and hex), IPv4-compatible, SIIT, NAT64 with a private IPv4
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '0:0:0:0:0:ffff:7f00:0001',
  '::ffff:10.0.0.1',
  '::ffff:a9fe:a9fe',
  '::127.0.0.1',
  '::7f00:1',
  '::8.8.8.8',
  '::ffff:0:7f00:1',
  '64:ff9b::127.0.0.1',
  '64:ff9b::a00:1',
  '64:ff9b::169.254.169.254',
];
export const PUBLIC_ADDRESSES = [
  '93.184.215.14',
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700::1111',
  '2a00:1450:4001::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
];

/** URL spellings of internal hosts (WHATWG parsing turns each into a literal address or a localhost name). */
export const REFUSED_URLS = [
  'http://127.0.0.1/x',
  'http://127.1/x',
  'http://2130706433/x',
  'http://0x7f000001/x',
  'http://0x7f.1/x',
  'http://0177.0.0.1/x',
  'http://127.000.000.001/x',
  'http://0/x',
  'http://localhost/x',
  'http://LOCALHOST./x',
  'https://api.localhost/x',
  'http://10.1.2.3/x',
  'http://192.168.0.10:8080/x',
  'http://172.16.5.4/x',
  'http://169.254.169.254/latest/meta-data',
  'http://100.64.1.1/x',
  'http://[::1]/x',
  'http://[::]/x',
  'http://[::ffff:127.0.0.1]/x',
  'http://[::ffff:7f00:1]/x',
  'http://[0:0:0:0:0:ffff:127.0.0.1]/x',
  'http://[::127.0.0.1]/x',
  'http://[fd00::1]/x',
  'http://[fe80::1]/x',
  'http://[fec0::1]/x',
  'http://[2002:7f00:1::1]/x',
  'http://[64:ff9b::10.0.0.1]/x',
  'http://[64:ff9b::7f00:1]/x',
  'http://[2001:db8::1]/x',
  'http://[ff02::1]/x',
  'http://user:pw@127.0.0.1/x',
];

/** A resolver for which every name is what `localhost` is on this machine (a real lookup): a rebound name. */
export const toLoopback: Resolver = ((
  _host: string,
  options: dns.LookupOptions,
  callback: (...args: unknown[]) => void,
) => dns.lookup('localhost', { ...options, family: 4 }, callback as never)) as unknown as Resolver;
/** A resolver answering with a public address (what a name said at registration, before rebinding). */
export const toPublic: Resolver = ((
  _host: string,
  options: dns.LookupOptions,
  callback: (...args: unknown[]) => void,
) =>
  options.all
    ? callback(null, [{ address: '93.184.215.14', family: 4 }])
    : callback(null, '93.184.215.14', 4)) as unknown as Resolver;
