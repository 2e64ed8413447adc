// Fastify's `trustProxy` from TRUST_PROXY (config.ts): which peers may tell us the client address (X-Forwarded-For).
// Addresses / CIDRs go to Fastify as they are. Fastify refuses a bare hop count, since a client that reaches the API
// directly could then name any address; our hop count N therefore trusts N hops only when the immediate peer is on
// a private network (loopback, RFC 1918, link-local, IPv6 unique-local): a load balancer in front of the API, never
// a client coming from the internet.
import net from 'node:net';
import type { Config } from '../platform/config.js';

const PRIVATE = new net.BlockList();
for (const [address, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
] as const) {
  PRIVATE.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  PRIVATE.addSubnet(address, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
  const family = net.isIP(address);
  return family !== 0 && PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type TrustProxy = false | string[] | ((address: string, hop: number) => boolean);

export function trustProxyOption(setting: Config['trustProxy']): TrustProxy {
  if (typeof setting !== 'number') return setting;
  const hops = setting;
  // hop 0 is the socket's peer; hop i the i-th X-Forwarded-For entry from the right.
  return (address, hop) => (hop === 0 ? isPrivateAddress(address) : hop < hops);
}
