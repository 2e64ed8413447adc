// TRUST_PROXY as Fastify's trustProxy (src/http/trust-proxy.ts): a hop count trusts that many hops only behind a
// peer on a private network, so a client from the internet cannot name its own address in X-Forwarded-For.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { isPrivateAddress, trustProxyOption } from '../../src/http/trust-proxy.js';

describe('trustProxyOption', () => {
  it('is off by default; a hop count or a list of addresses; "true" is refused', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toEqual(['10.0.0.0/8', 'loopback']);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
  });

  it('a hop count trusts the peer only on a private network, then that many hops', () => {
    const one = trustProxyOption(1) as (address: string, hop: number) => boolean;
    expect(one('203.0.113.9', 0)).toBe(false); // a client from the internet cannot pose as a proxy
    for (const address of ['10.1.2.3', '172.20.0.1', '192.168.1.1', '127.0.0.1', '::1', '::ffff:10.0.0.1', 'fd00::1'])
      expect(one(address, 0)).toBe(true);
    expect(one('10.1.2.3', 1)).toBe(false);
    expect((trustProxyOption(2) as (address: string, hop: number) => boolean)('203.0.113.9', 1)).toBe(true);
    expect(trustProxyOption(false)).toBe(false);
  });

  it('false and address lists go to Fastify as they are', () => {
    expect(trustProxyOption(false)).toBe(false);
    expect(trustProxyOption(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
  });

  it('a hop count: the peer must be private; then that many hops of X-Forwarded-For', () => {
    const trust = trustProxyOption(2) as (address: string, hop: number) => boolean;
    expect(trust('10.1.2.3', 0)).toBe(true);
    expect(trust('::ffff:192.168.0.9', 0)).toBe(true);
    expect(trust('93.184.215.14', 0)).toBe(false);
    expect(trust('93.184.215.14', 1)).toBe(true);
    expect(trust('93.184.215.14', 2)).toBe(false);
  });

  it('private: loopback, RFC 1918, link-local, unique-local; not the neighbours of those ranges', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.1.1',
      '::1',
      'fd00::1',
      'fe80::1',
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of [
      '172.32.0.1',
      '11.0.0.1',
      '192.169.0.1',
      '8.8.8.8',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      'nonsense',
    ])
      expect(isPrivateAddress(a), a).toBe(false);
  });
});
