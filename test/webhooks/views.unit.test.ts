// What a webhook endpoint leaves the API in (src/webhooks/views.ts): its health from the age of its failures, the end
// of a secret rotation, and the signing secret only where the answer is meant to carry it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAILING_AFTER_MS, type EndpointRow } from '../../src/webhooks/repository.js';
import { CreateEndpointBody, WebhookEndpoint } from '../../src/webhooks/schemas.js';
import { toEndpoint, toEndpointWithSecret } from '../../src/webhooks/views.js';

const NOW = new Date('2030-06-01T12:00:00Z');
const row = (change: Partial<EndpointRow> = {}): EndpointRow => ({
  id: '44444444-4444-4444-8444-444444444444',
  tenant_id: '11111111-1111-4111-8111-111111111111',
  url: 'https://hooks.shop.test/x',
  description: null,
  events: null,
  secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=',
  previous_secret: null,
  previous_secret_expires_at: null,
  status: 'enabled',
  disabled_reason: null,
  failing_since: null,
  livemode: true,
  created_at: new Date('2030-01-01T00:00:00Z'),
  ...change,
});

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(NOW);
});
afterEach(() => vi.useRealTimers());

describe('webhook endpoint view', () => {
  it('healthy while attempts succeed or have failed for less than 24 h; failing from 24 h on; disabled when disabled', () => {
    expect(toEndpoint(row()).health).toBe('healthy');
    const since = (ms: number) => new Date(NOW.getTime() - ms);
    expect(toEndpoint(row({ failing_since: since(FAILING_AFTER_MS - 1) })).health).toBe('healthy');
    expect(toEndpoint(row({ failing_since: since(FAILING_AFTER_MS) })).health).toBe('failing');
    expect(toEndpoint(row({ status: 'disabled', disabled_reason: 'gone' })).health).toBe('disabled');
    expect(toEndpoint(row({ failing_since: since(1000) })).failing_since).toBe('2030-06-01T11:59:59.000Z');
    expect(FAILING_AFTER_MS).toBe(24 * 3600 * 1000);
  });

  it('secret_rotated_until only while the previous secret is still valid', () => {
    const until = new Date(NOW.getTime() + 3600_000);
    expect(
      toEndpoint(row({ previous_secret: 'whsec_old', previous_secret_expires_at: until })).secret_rotated_until,
    ).toBe(until.toISOString());
    const past = new Date(NOW.getTime() - 1);
    expect(
      toEndpoint(row({ previous_secret: 'whsec_old', previous_secret_expires_at: past })).secret_rotated_until,
    ).toBeNull();
  });

  it('never the secret (nor the previous one) but in the answer that carries it', () => {
    const e = toEndpoint(row({ previous_secret: 'whsec_old', previous_secret_expires_at: NOW }));
    expect(WebhookEndpoint.strict().parse(e)).toBeTruthy();
    expect(JSON.stringify(e)).not.toMatch(/whsec_|tenant/);
    expect(toEndpointWithSecret(row()).secret).toBe(row().secret);
  });
});

describe('webhook endpoint request body', () => {
  it('events: a list of known types, at least one, no repeats; null or absent for every type; strict', () => {
    const url = 'https://hooks.shop.test/x';
    expect(CreateEndpointBody.safeParse({ url }).success).toBe(true);
    expect(CreateEndpointBody.safeParse({ url, events: null }).success).toBe(true);
    expect(CreateEndpointBody.safeParse({ url, events: ['delivery.created'] }).success).toBe(true);
    expect(CreateEndpointBody.safeParse({ url, events: [] }).success).toBe(false);
    expect(CreateEndpointBody.safeParse({ url, events: ['delivery.created', 'delivery.created'] }).success).toBe(false);
    expect(CreateEndpointBody.safeParse({ url, events: ['delivery.teleported'] }).success).toBe(false);
    expect(CreateEndpointBody.safeParse({ url, secret: 'mine' }).success).toBe(false);
    expect(CreateEndpointBody.safeParse({ url: '   ' }).success).toBe(false);
    expect(CreateEndpointBody.parse({ url: ` ${url} ` }).url).toBe(url);
  });
});
