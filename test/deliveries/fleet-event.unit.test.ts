// The body of a courier's fleet event (FleetEventBody of src/deliveries/fleet-routes.ts): strict at the top, the courier payload
// free-form but bounded, its known fields typed; and how a bad one is answered (the errors plugin on a bare app).
import Fastify from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { parseJsonBodies } from '../../src/http/json-body.js';
import errorsPlugin from '../../src/http/plugins/errors.js';
import { FleetEventBody } from '../../src/deliveries/fleet-routes.js';

const event = (change: Record<string, unknown> = {}) => ({
  tracking_ref: 'TRK-1',
  event_type: 'delivered',
  occurred_at: '2030-01-01T10:00:00Z',
  ...change,
});
const ok = (value: unknown) => FleetEventBody.safeParse(value).success;

describe('FleetEventBody', () => {
  it('takes the fleet event types only, a date-time with an offset in range, a tracking ref of 1..200', () => {
    expect(ok(event())).toBe(true);
    expect(ok(event({ event_type: 'payment.confirmed' }))).toBe(true);
    expect(ok(event({ event_type: 'cancelled' }))).toBe(false);
    expect(ok(event({ event_type: 'delivery.delivered' }))).toBe(false);
    expect(ok(event({ occurred_at: '2030-01-01 10:00' }))).toBe(false);
    expect(ok(event({ occurred_at: '1969-12-31T23:59:59Z' }))).toBe(false);
    expect(ok(event({ tracking_ref: '' }))).toBe(false);
    expect(ok(event({ tracking_ref: 'x'.repeat(201) }))).toBe(false);
  });

  it('strict at the top level; the payload keeps unknown fields (dropped later), types its known ones', () => {
    expect(ok(event({ status: 'delivered' }))).toBe(false);
    expect(ok(event({ payload: { anything: { nested: true }, ignored: true } }))).toBe(true);
    expect(ok(event({ payload: null }))).toBe(true);
    expect(ok(event({ payload: { pin: '4821' } }))).toBe(true);
    expect(ok(event({ payload: { pin: 4821 } }))).toBe(true);
    expect(ok(event({ payload: { location: { lat: 91, lng: 0 } } }))).toBe(false);
    expect(ok(event({ payload: { eta: 'soon' } }))).toBe(false);
    expect(ok(event({ payload: { eta_minutes: 1.5 } }))).toBe(false);
    expect(ok(event({ payload: { note: 'n'.repeat(1001) } }))).toBe(false);
  });

  it('a PIN of the wrong type is invalid_type at /payload/pin, never invalid_union', async () => {
    const app = Fastify({ logger: false });
    app.setValidatorCompiler(validatorCompiler);
    await app.register(errorsPlugin, { baseUrl: 'https://api.example.test' });
    await app.register(async (scope) => {
      parseJsonBodies(scope, { keepRaw: true });
      scope.post('/v1/fleet/:slug/events', { schema: { body: FleetEventBody } }, async (request) => ({
        raw: request.rawBody,
      }));
    });
    const raw = JSON.stringify(event({ payload: { pin: { digits: 1234 } } }));
    const res = await app.inject({
      method: 'POST',
      url: '/v1/fleet/x/events',
      payload: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([expect.objectContaining({ pointer: '/payload/pin', code: 'invalid_type' })]);
    // The signature covers the exact bytes: the raw body is kept as sent.
    const spaced = ' ' + JSON.stringify(event()) + '\n';
    const good = await app.inject({
      method: 'POST',
      url: '/v1/fleet/x/events',
      payload: spaced,
      headers: { 'content-type': 'application/json' },
    });
    expect(good.json()).toEqual({ raw: spaced });
    await app.close();
  });
});
