// The courier simulator as a real HTTP server, spoken to through the real http adapter; fleet events
// received by a real HTTP receiver and verified with standardwebhooks. Edge cases the simulator cannot
// produce (oversized or stalled answers) come from small raw node:http servers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CourierRejectedError,
  CourierUnavailableError,
  type BookingRequest,
  type QuoteRequest,
} from '../../src/couriers/adapters/adapter.js';
import { HttpCourierAdapter, closeCourierAgent } from '../../src/couriers/adapters/http.js';
import { createSimulator, newFleetSecret, type CompanyConfig, type Simulator } from '../../simulator/server.js';

const luanda = { address_line: 'Rua Rainha Ginga 10', city: 'Luanda', province: 'Luanda' };
const viana = { address_line: 'Estrada de Catete km 12', city: 'Viana', province: 'Luanda' };
const quoteRequest: QuoteRequest = { origin: luanda, destination: viana, parcel: { weight_grams: 1500 } };

let sim: Simulator;
/** Every wait the simulator made (latency_ms, pauses between event retries), in ms. */
const slept: number[] = [];

interface Received {
  headers: Record<string, string>;
  body: string;
  json: any;
}
interface Receiver {
  url: string;
  received: Received[];
  /** Status to answer with (default 200). */
  status: number;
  /** Requests received, whatever the answer. */
  readonly hits: number;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const state = { status: 200, hits: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      state.hits++;
      if (state.status < 300) received.push({ headers, body, json: JSON.parse(body) });
      res.writeHead(state.status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/fleet/x/events`;
  return {
    url,
    received,
    get status() {
      return state.status;
    },
    set status(s: number) {
      state.status = s;
    },
    get hits() {
      return state.hits;
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(
            `expected ${count} events, got ${received.length}: ${received.map((r) => r.json.event_type).join(', ')}`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A raw server for answers the simulator does not produce. */
async function rawServer(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      }),
  };
}

function company(overrides: Partial<CompanyConfig> = {}): CompanyConfig {
  const config: CompanyConfig = {
    slug: `sim-${randomUUID().slice(0, 8)}`,
    fleet_secret: newFleetSecret(),
    pricing: { base_fee_aoa: 100_000, per_kg_aoa: 1_000 },
    ...overrides,
  };
  sim.control.upsert(config);
  return config;
}
const adapter = (c: CompanyConfig, timeoutMs = 1000) =>
  new HttpCourierAdapter({ slug: c.slug, endpoint: sim.endpoint(c.slug), timeout_ms: timeoutMs });
const booking = (callbackUrl: string, overrides: Partial<BookingRequest> = {}): BookingRequest => {
  const deliveryId = overrides.delivery_id ?? randomUUID();
  return {
    delivery_id: deliveryId,
    idempotency_key: `${deliveryId}.1`,
    reference: `DLV-${randomUUID().slice(0, 6)}`,
    origin: luanda,
    destination: viana,
    parcel: { weight_grams: 1500 },
    payment_method: 'prepaid',
    cash_collect_aoa: null,
    scheduled_pickup_at: null,
    callback_url: callbackUrl,
    ...overrides,
  };
};

beforeAll(async () => {
  sim = await createSimulator({
    companies: [],
    eventRetries: 2,
    sleep: (ms) => (slept.push(ms), new Promise((r) => setTimeout(r, ms))),
  });
});
afterAll(async () => {
  await sim?.close();
  await closeCourierAgent();
});

describe('courier protocol through the http adapter', () => {
  it('quotes with fee, eta and validity from the company pricing', async () => {
    const c = company({
      pricing: { base_fee_aoa: 150_000, per_kg_aoa: 5_000, per_kg_threshold_grams: 1_000, base_eta_minutes: 40 },
      valid_for_seconds: 120,
    });
    const q = await adapter(c).quote(quoteRequest);
    expect(q).toMatchObject({ fee_aoa: 155_000, eta_minutes: 40, valid_for_seconds: 120 });
    expect(q!.upstream_ref).toMatch(/^q_/);
    expect(sim.control.stats(c.slug).quotes).toBe(1);
  });

  it('a 422 "cannot carry" answer is null, not a failure', async () => {
    const c = company({ max_weight_grams: 1000 });
    expect(await adapter(c).quote(quoteRequest)).toBeNull();
    const z = company({ service_zones: ['Benguela'] });
    expect(await adapter(z).quote(quoteRequest)).toBeNull();
  });

  it.each(['json', 'html', 'truncated', 'wrong_types', 'empty'] as const)(
    'garbage answer "%s" is CourierUnavailableError',
    async (mode) => {
      const c = company({ garbage: mode });
      await expect(adapter(c).quote(quoteRequest)).rejects.toBeInstanceOf(CourierUnavailableError);
      await expect(adapter(c).book(booking('http://127.0.0.1:9/cb'))).rejects.toBeInstanceOf(CourierUnavailableError);
    },
  );

  it('5xx and failure_rate are CourierUnavailableError', async () => {
    const c = company({ failure_rate: 1 });
    await expect(adapter(c).quote(quoteRequest)).rejects.toThrow(/HTTP 503/);
  });

  it('a hanging courier is cut at the timeout', async () => {
    const c = company({ hang: true });
    // The message says the timeout cut it (how long that takes is the benchmarks' business).
    await expect(adapter(c, 300).quote(quoteRequest)).rejects.toThrow(/no answer within 300 ms/);
  });

  it('latency below the timeout is waited for', async () => {
    const c = company({ latency_ms: 150 });
    slept.length = 0;
    expect(await adapter(c, 1000).quote(quoteRequest)).not.toBeNull();
    // The simulator answers after its wait: the latency was really there, and the adapter waited for it.
    expect(slept).toContain(150);
  });

  it('faults_on limits the faults to some calls', async () => {
    const c = company({ failure_rate: 1, faults_on: ['bookings'] });
    expect(await adapter(c).quote(quoteRequest)).not.toBeNull();
    await expect(adapter(c).book(booking('http://127.0.0.1:9/cb'))).rejects.toBeInstanceOf(CourierUnavailableError);
  });

  it('books (accepted or pending), re-booking the same delivery returns the same job, and cancels', async () => {
    const accepted = company();
    const req = booking('http://127.0.0.1:9/cb');
    const first = await adapter(accepted).book(req);
    expect(first.status).toBe('accepted');
    expect(first.tracking_ref).toMatch(/^SIM-/);
    expect(await adapter(accepted).book(req)).toEqual(first);
    expect(sim.control.bookings(accepted.slug)).toHaveLength(1);
    expect(sim.control.booking(accepted.slug, first.tracking_ref)).toMatchObject({
      delivery_id: req.delivery_id,
      reference: req.reference,
      callback_url: req.callback_url,
    });
    expect(await adapter(accepted).cancel(first.tracking_ref)).toBe('cancelled');
    expect(sim.control.booking(accepted.slug, first.tracking_ref)!.status).toBe('cancelled');
    expect(await adapter(accepted).cancel('NO-SUCH-JOB')).toBe('cancelled');

    const pending = company({ booking_status: 'pending' });
    expect((await adapter(pending).book(booking('http://127.0.0.1:9/cb'))).status).toBe('pending');
  });

  it('sends Idempotency-Key on every booking: a repeated key is the first job (even cancelled), a new booking number a new job', async () => {
    const c = company();
    const req = booking('http://127.0.0.1:9/cb');
    expect(req.idempotency_key).toBe(`${req.delivery_id}.1`);
    const first = await adapter(c).book(req);
    expect(sim.control.booking(c.slug, first.tracking_ref)).toMatchObject({ idempotency_key: `${req.delivery_id}.1` });
    // The answer was lost and the booking is retried with the same key: the same job, never a second driver.
    expect(await adapter(c).book(req)).toEqual(first);
    expect(await adapter(c).cancel(first.tracking_ref)).toBe('cancelled');
    expect(await adapter(c).book(req)).toEqual(first);
    expect(sim.control.bookings(c.slug)).toHaveLength(1);
    // A redispatch books again with the next number: a new job.
    const second = await adapter(c).book({ ...req, idempotency_key: `${req.delivery_id}.2` });
    expect(second.tracking_ref).not.toBe(first.tracking_ref);
    expect(sim.control.bookings(c.slug).map((b) => b.idempotency_key)).toEqual([
      `${req.delivery_id}.1`,
      `${req.delivery_id}.2`,
    ]);
  });

  it('a refused booking (409 or 422) is CourierRejectedError; a refused cancellation is "refused"', async () => {
    for (const status of [409, 422] as const) {
      const c = company({ reject_bookings: status });
      const err = await adapter(c)
        .book(booking('http://127.0.0.1:9/cb'))
        .catch((e) => e);
      expect(err).toBeInstanceOf(CourierRejectedError);
      expect(err.status).toBe(status);
    }
    const c = company({ refuse_cancellation: true });
    const { tracking_ref } = await adapter(c).book(booking('http://127.0.0.1:9/cb'));
    expect(await adapter(c).cancel(tracking_ref)).toBe('refused');
  });

  it('a failing cancellation is CourierUnavailableError', async () => {
    const c = company({ failure_rate: 1, faults_on: ['cancel'] });
    const { tracking_ref } = await adapter(c).book(booking('http://127.0.0.1:9/cb'));
    await expect(adapter(c).cancel(tracking_ref)).rejects.toBeInstanceOf(CourierUnavailableError);
  });

  it('an oversized answer, a stalled body, a refused connection and a missing endpoint are CourierUnavailableError', async () => {
    const huge = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"fee_aoa": 1, "pad": "' + 'x'.repeat(2 * 1024 * 1024) + '"}');
    });
    const stalled = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"fee_aoa": 100, ');
    });
    const http4 = (url: string | null, timeout = 400) =>
      new HttpCourierAdapter({ slug: 'raw', endpoint: url, timeout_ms: timeout });
    try {
      await expect(http4(huge.url).quote(quoteRequest)).rejects.toThrow(/larger than/);
      // Headers came, the body never ends: the one timeout covers the body too.
      await expect(http4(stalled.url).quote(quoteRequest)).rejects.toThrow(/within 400 ms/);
      await expect(http4('http://127.0.0.1:9').quote(quoteRequest)).rejects.toBeInstanceOf(CourierUnavailableError);
      await expect(http4(null).quote(quoteRequest)).rejects.toThrow(/no endpoint/);
    } finally {
      await huge.close();
      await stalled.close();
    }
  });
});

describe('auto-progress and fleet events', () => {
  it('sends the whole chain, signed with the company fleet secret, starting with assigned for a pending booking', async () => {
    const receiver = await startReceiver();
    try {
      const c = company({ booking_status: 'pending', auto_progress: { delay_ms: 30 } });
      const { tracking_ref } = await adapter(c).book(booking(receiver.url));
      const events = await receiver.waitFor(5);
      const wh = new Webhook(c.fleet_secret);
      for (const e of events) {
        expect(e.headers['webhook-id']).toMatch(/^msg_/);
        expect(Number(e.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
        expect(wh.verify(e.body, e.headers)).toEqual(e.json);
        expect(e.json).toMatchObject({ tracking_ref, payload: {} });
        expect(new Date(e.json.occurred_at).toISOString()).toBe(e.json.occurred_at);
      }
      expect(events.map((e) => e.json.event_type)).toEqual([
        'assigned',
        'pickup_ready',
        'in_transit',
        'out_for_delivery',
        'delivered',
      ]);
      // Another secret does not verify.
      expect(() => new Webhook(newFleetSecret()).verify(events[0].body, events[0].headers)).toThrow();
      // The simulator records a response after the receiver has answered it, so the last one can lag a little.
      await vi.waitFor(() => {
        expect(sim.control.booking(c.slug, tracking_ref)!.events.map((e) => e.response_status)).toEqual([
          200, 200, 200, 200, 200,
        ]);
      });
    } finally {
      await receiver.close();
    }
  });

  it('an accepted booking starts at pickup_ready; outcome failed ends with failed; stop_after stops', async () => {
    const receiver = await startReceiver();
    try {
      const ok = company({ booking_status: 'accepted', auto_progress: { delay_ms: 20, outcome: 'failed' } });
      await adapter(ok).book(booking(receiver.url));
      const events = await receiver.waitFor(4);
      expect(events.map((e) => e.json.event_type)).toEqual([
        'pickup_ready',
        'in_transit',
        'out_for_delivery',
        'failed',
      ]);

      receiver.received.length = 0;
      const stop = company({ booking_status: 'pending', auto_progress: { delay_ms: 20, stop_after: 'assigned' } });
      const stopped = await adapter(stop).book(booking(receiver.url));
      await receiver.waitFor(1);
      // The chain has stopped (nothing scheduled any more), so what arrived is all that will.
      await vi.waitFor(() =>
        expect(sim.control.booking(stop.slug, stopped.tracking_ref)).toMatchObject({
          progressing: false,
          events: [{ event_type: 'assigned' }],
        }),
      );
      expect(receiver.received.map((e) => e.json.event_type)).toEqual(['assigned']);
    } finally {
      await receiver.close();
    }
  });

  it('failed_attempts: the first attempts fail with the reasons in turn, then delivered; a refusal stops at once', async () => {
    const receiver = await startReceiver();
    try {
      const twice = company({
        auto_progress: { delay_ms: 20, failed_attempts: { first: 1, reasons: ['address_not_found'], max: 2 } },
      });
      await adapter(twice).book(booking(receiver.url));
      const events = await receiver.waitFor(6);
      expect(events.map((e) => e.json.event_type)).toEqual([
        'pickup_ready',
        'in_transit',
        'out_for_delivery',
        'attempt_failed',
        'out_for_delivery',
        'delivered',
      ]);
      expect(events[3].json.payload).toEqual({ reason: 'address_not_found' });

      receiver.received.length = 0;
      const refused = company({
        auto_progress: { delay_ms: 20, failed_attempts: { rate: 1, reasons: ['recipient_refused'], max: 5 } },
      });
      const job = await adapter(refused).book(booking(receiver.url));
      await receiver.waitFor(4);
      await vi.waitFor(() =>
        expect(sim.control.booking(refused.slug, job.tracking_ref)).toMatchObject({
          progressing: false,
          failed_attempts: 1,
        }),
      );
      expect(receiver.received.map((e) => e.json.event_type).at(-1)).toBe('attempt_failed');
    } finally {
      await receiver.close();
    }
  });

  it('failed_attempts with returns: false: a return (reference ending in -R) is delivered at its first attempt', async () => {
    const receiver = await startReceiver();
    try {
      const c = company({
        auto_progress: { delay_ms: 20, failed_attempts: { first: 2, max: 2, returns: false } },
      });
      const original = await adapter(c).book(booking(receiver.url));
      await vi.waitFor(() =>
        expect(sim.control.booking(c.slug, original.tracking_ref)).toMatchObject({
          progressing: false,
          failed_attempts: 2,
        }),
      );
      receiver.received.length = 0;
      await adapter(c).book(booking(receiver.url, { reference: 'DLV-RETURN1-R' }));
      const events = await receiver.waitFor(4);
      expect(events.map((e) => e.json.event_type)).toEqual([
        'pickup_ready',
        'in_transit',
        'out_for_delivery',
        'delivered',
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('with require_delivery_pin the chain waits at delivered for the PIN, then sends it as payload.pin', async () => {
    const receiver = await startReceiver();
    try {
      const c = company({ require_delivery_pin: true, auto_progress: { delay_ms: 20 } });
      const { tracking_ref } = await adapter(c).book(booking(receiver.url));
      await receiver.waitFor(3);
      // Waiting for the PIN, the chain has nothing scheduled: the three events are all that came.
      await vi.waitFor(() =>
        expect(sim.control.booking(c.slug, tracking_ref)).toMatchObject({ waiting_for_pin: true, progressing: false }),
      );
      expect(receiver.received).toHaveLength(3);

      // Over HTTP, as tests of other issues drive it.
      const res = await fetch(`${sim.url}/_control/${c.slug}/pins`, {
        method: 'POST',
        body: JSON.stringify({ tracking_ref, pin: '4821' }),
      });
      expect(res.status).toBe(200);
      const [last] = (await receiver.waitFor(4)).slice(-1);
      expect(last.json).toMatchObject({ tracking_ref, event_type: 'delivered', payload: { pin: '4821' } });
      expect(new Webhook(c.fleet_secret).verify(last.body, last.headers)).toBeTruthy();
    } finally {
      await receiver.close();
    }
  });

  it('retries an auto-progress event the receiver did not take, with the same webhook-id', async () => {
    const receiver = await startReceiver();
    try {
      receiver.status = 503;
      const c = company({ booking_status: 'pending', auto_progress: { delay_ms: 10, stop_after: 'assigned' } });
      const { tracking_ref } = await adapter(c).book(booking(receiver.url));
      await vi.waitFor(() => expect(receiver.hits).toBe(1)); // the first attempt was refused
      receiver.status = 200;
      const [e] = await receiver.waitFor(1, 5000);
      expect(e.json.event_type).toBe('assigned');
      await vi.waitFor(() => {
        const sent = sim.control.booking(c.slug, tracking_ref)!.events[0];
        expect(sent).toMatchObject({ webhook_id: e.headers['webhook-id'], response_status: 200, attempts: 2 });
      });
    } finally {
      await receiver.close();
    }
  });
});

describe('control API over HTTP', () => {
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sim.url}/_control${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('adds companies, changes behaviour at run time and resets it', async () => {
    const slug = `ctl-${randomUUID().slice(0, 8)}`;
    expect(
      (await control('POST', '/companies', { slug, fleet_secret: newFleetSecret(), pricing: { base_fee_aoa: 77_000 } }))
        .status,
    ).toBe(201);
    const a = new HttpCourierAdapter({ slug, endpoint: sim.endpoint(slug), timeout_ms: 300 });
    expect((await a.quote(quoteRequest))!.fee_aoa).toBe(77_000);

    expect((await control('PATCH', `/${slug}`, { hang: true })).body).toMatchObject({ slug, hang: true });
    await expect(a.quote(quoteRequest)).rejects.toBeInstanceOf(CourierUnavailableError);
    expect((await control('PATCH', `/${slug}`, { hang: false, garbage: 'html' })).status).toBe(200);
    await expect(a.quote(quoteRequest)).rejects.toThrow(/not the courier protocol/);
    expect((await control('POST', `/${slug}/reset`)).body.garbage).toBeUndefined();
    expect((await a.quote(quoteRequest))!.fee_aoa).toBe(77_000);

    const info = await control('GET', `/${slug}`);
    expect(info.body.stats.quotes).toBe(4);
    expect((await control('GET', '/companies')).body.data.map((c: CompanyConfig) => c.slug)).toContain(slug);
    expect((await control('GET', '/nope-nope')).status).toBe(404);
  });

  it('lists bookings and sends single signed events and delivered-with-PIN on demand', async () => {
    const receiver = await startReceiver();
    try {
      const c = company();
      const { tracking_ref } = await adapter(c).book(booking(receiver.url, { reference: 'DLV-CTRL-1' }));
      const list = await control('GET', `/${c.slug}/bookings`);
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0]).toMatchObject({
        tracking_ref,
        reference: 'DLV-CTRL-1',
        callback_url: receiver.url,
        status: 'accepted',
      });

      const sent = await control('POST', `/${c.slug}/events`, {
        tracking_ref,
        event_type: 'in_transit',
        payload: { driver: 'Ana' },
      });
      expect(sent.status).toBe(200);
      expect(sent.body).toMatchObject({ event_type: 'in_transit', response_status: 200 });
      const [e] = await receiver.waitFor(1);
      expect(new Webhook(c.fleet_secret).verify(e.body, e.headers)).toMatchObject({
        tracking_ref,
        event_type: 'in_transit',
        payload: { driver: 'Ana' },
      });
      expect(e.headers['webhook-id']).toBe(sent.body.webhook_id);

      const delivered = await control('POST', `/${c.slug}/deliver`, { tracking_ref, pin: '0042' });
      expect(delivered.status).toBe(200);
      const events = await receiver.waitFor(2);
      expect(events[1].json).toMatchObject({ event_type: 'delivered', payload: { pin: '0042' } });

      expect(
        (await control('POST', `/${c.slug}/events`, { tracking_ref: 'NOPE', event_type: 'assigned' })).status,
      ).toBe(404);
      expect((await control('POST', `/${c.slug}/events`, { tracking_ref })).status).toBe(422);
    } finally {
      await receiver.close();
    }
  });

  it('reports an unreachable callback as 502', async () => {
    const c = company();
    const { tracking_ref } = await adapter(c).book(booking('http://127.0.0.1:9/v1/fleet/x/events'));
    const res = await control('POST', `/${c.slug}/events`, { tracking_ref, event_type: 'assigned' });
    expect(res.status).toBe(502);
    expect(res.body.response_status).toBeNull();
  });
});
