// SSRF checks of merchant webhook URLs (src/webhooks/url.ts), without the stack: every special-use address in every
// spelling (IPv4, IPv6, IPv4 inside IPv6, odd URL forms) refused, public ones accepted, loopback only with the
// opt-in; the registration check after DNS resolution and the send-time lookup (DNS rebinding) with stub resolvers.
// The same rules on the real stack (422 at registration, nothing sent) are in test/webhooks/security-ssrf.test.ts.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import {
  checkUrlSyntax,
  checkWebhookUrl,
  guardedLookup,
  isPrivateAddress,
  isRefusedAddress,
} from '../../src/webhooks/url.js';
import { PUBLIC_ADDRESSES, REFUSED_ADDRESSES, REFUSED_URLS, toLoopback, toPublic } from './ssrf-cases.js';

describe('address and URL checks', () => {
  it.each(REFUSED_ADDRESSES)('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
    expect(isRefusedAddress(address, false)).toBe(true);
  });

  it.each(PUBLIC_ADDRESSES)('accepts the public address %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('the loopback opt-in lets loopback through, and nothing else', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1'])
      expect(isRefusedAddress(a, true), a).toBe(false);
    for (const a of REFUSED_ADDRESSES.filter(
      (x) => !/^(127\.|::1$|::ffff:(127\.|7f00:)|0:0:0:0:0:(0:0:1|ffff:7f00:))/.test(x),
    )) {
      expect(isRefusedAddress(a, true), a).toBe(true);
    }
  });

  it.each(REFUSED_URLS)('checkUrlSyntax refuses %s', (url) => {
    expect(checkUrlSyntax(url, false)?.code).toBe('private_address');
  });

  it('checkWebhookUrl: a name resolving to an internal address is refused; a public one accepted; loopback with the opt-in', async () => {
    expect(await checkWebhookUrl('https://hooks.shop.test/x', false, { resolve: toLoopback })).toMatchObject({
      code: 'private_address',
    });
    expect(await checkWebhookUrl('https://hooks.shop.test/x', false, { resolve: toPublic })).toBeNull();
    expect(await checkWebhookUrl('https://hooks.shop.test/x', true, { resolve: toLoopback })).toBeNull();
    expect(await checkWebhookUrl('http://localhost:8080/x', true)).toBeNull();
  });

  it('the send-time lookup drops internal answers and fails when none is left (real lookup of localhost)', async () => {
    const lookup = (allowLoopback: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
        guardedLookup(allowLoopback)('localhost', { family: 4 }, (err, address) => resolve({ err, address })),
      );
    const refused = await lookup(false);
    expect(refused.err?.code).toBe('EPRIVATEADDRESS');
    expect((await lookup(true)).address).toBe('127.0.0.1');
  });

  it('is on by default: ALLOW_LOOPBACK_WEBHOOKS must be set explicitly, whatever NODE_ENV says', () => {
    expect(loadConfig({}).allowLoopbackWebhooks).toBe(false);
    expect(loadConfig({ NODE_ENV: 'development' }).allowLoopbackWebhooks).toBe(false);
    expect(loadConfig({ ALLOW_LOOPBACK_WEBHOOKS: 'true' }).allowLoopbackWebhooks).toBe(true);
    expect(loadConfig({ ALLOW_LOOPBACK_WEBHOOKS: 'false' }).allowLoopbackWebhooks).toBe(false);
  });

  it('isPrivateAddress: internal ranges of both families, public ones not', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd12::1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(a), a).toBe(false);
  });
});
