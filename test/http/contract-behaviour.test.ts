// Behaviour the contract review of issue 15 fixed, on the real stack: quote expiry on the database clock, `search`
// within one field at a time, and ignored events (marked `ignored: true` for the merchant, left out of the widget
// and public tracking lists alike). The operator's `resume` after a failed dispatch is in the fast workflow tier
// (test/workflows/delivery.fast.test.ts); cash_collect_aoa only with cod in test/deliveries/security-widget.test.ts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Simulator } from '../../simulator/server.js';
import { deliveryWorkflowId, operatorActionSignal } from '../../shared/deliveries/definitions.js';
import {
  DESTINATION,
  ORIGIN,
  PARCEL,
  createDeliveryFor,
  merchantWith,
  quote,
  quoteBody,
  simCompany,
  startSimulator,
  waitFor,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

const SHOP = 'http://shop.test';
let stack: Stack;
let sim: Simulator;
let m: Merchant;
beforeAll(async () => {
  [stack, sim] = await Promise.all([startStack(), startSimulator()]);
  m = await merchantWith(stack, sim, [simCompany()], [], [SHOP]);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const key = (merchant: Merchant) => merchant.tenant.secret_key;

describe('quote expiry on the database clock', () => {
  /** Creates a delivery from a fresh quote whose valid_until the database puts `offsetSeconds` from its now(),
   *  while the API process's clock is `skewMs` off. */
  async function createWith(offsetSeconds: number, skewMs: number) {
    const q = await quote(stack, m);
    await stack.pool.query(`UPDATE quotes SET valid_until = now() + make_interval(secs => $2) WHERE id = $1`, [
      q.quote_id,
      offsetSeconds,
    ]);
    const realNow = Date.now.bind(Date);
    const skewed = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skewMs);
    try {
      return await stack.request('POST', '/v1/deliveries', {
        key: key(m),
        body: { quote_id: q.quote_id, ...quoteBody() },
      });
    } finally {
      skewed.mockRestore();
    }
  }

  it('a quote 1 s past its valid_until per the database is quote_expired, though the API clock runs a minute behind', async () => {
    const res = await createWith(-1, -60_000);
    stack.expectProblem(res, 422, 'quote_expired');
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/quote_id', code: 'quote_expired' })]);
  });

  it('a quote still valid per the database is accepted, though the API clock runs a minute ahead', async () => {
    const res = await createWith(30, 60_000);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe('search matches within one field at a time', () => {
  let merchant: Merchant;
  let reference: string;
  beforeAll(async () => {
    // A tenant of its own: the searches below see this one delivery or nothing.
    merchant = await merchantWith(stack, sim, [simCompany()]);
    const origin = { ...ORIGIN, address_line: 'Rua Rainha Ginga 29', city: 'Luanda' };
    const destination = { ...DESTINATION, address_line: 'Estrada de Catete km 12', city: 'Viana' };
    const body = { origin, destination, parcel: PARCEL };
    const quoted = await stack.request('POST', '/v1/quotes', { key: key(merchant), body });
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(200);
    const created = await stack.request('POST', '/v1/deliveries', {
      key: key(merchant),
      body: { quote_id: quoted.body.data[0].quote_id, ...body },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    reference = created.body.reference;
  });

  const search = async (term: string) => {
    const res = await stack.request('GET', `/v1/deliveries?search=${encodeURIComponent(term)}`, { key: key(merchant) });
    expect(res.status).toBe(200);
    return res.body.data.map((d: { reference: string }) => d.reference);
  };

  it('each field alone matches: reference, origin and destination city, either address line', async () => {
    for (const term of [reference.slice(4, 10).toLowerCase(), 'LUANDA', 'viana', 'rainha ginga 29', 'Catete km'])
      expect(await search(term), term).toEqual([reference]);
  });

  it('a term spanning two fields matches nothing (it did when the fields were searched as one string)', async () => {
    for (const term of [`${reference} luanda`, 'luanda viana', 'viana rua', 'ginga 29 estrada'])
      expect(await search(term), term).toEqual([]);
  });
});

describe('ignored events: marked for the merchant, left out of the widget and tracking lists alike', () => {
  it('an operator action on a delivery that is not stalled', async () => {
    const created = await createDeliveryFor(stack, m);
    await waitForStatus(stack, key(m), created.id, 'assigned');
    await stack.temporal.workflow
      .getHandle(deliveryWorkflowId(created.id))
      .signal(operatorActionSignal, { action: 'mark_failed' });
    const delivery = await waitFor(stack, key(m), created.id, (d) =>
      d.events.some((e: { event_type: string }) => e.event_type === 'delivery.operator_action'),
    );
    expect(delivery.status).toBe('assigned');

    // The merchant: every event, the ignored one marked at the top level (and in its payload); no others marked.
    const events = (await stack.request('GET', `/v1/deliveries/${created.id}/events`, { key: key(m) })).body.data;
    expect(events).toEqual(delivery.events);
    const ignored = events.filter((e: { ignored?: boolean }) => e.ignored === true);
    expect(ignored).toEqual([
      expect.objectContaining({
        event_type: 'delivery.operator_action',
        ignored: true,
        payload: expect.objectContaining({ ignored: true, reason: 'not_stalled_assigned' }),
      }),
    ]);
    expect(events.filter((e: object) => 'ignored' in e)).toHaveLength(1);
    const kept = events.filter((e: { ignored?: boolean }) => !e.ignored);
    expect(kept.map((e: { event_type: string }) => e.event_type)).toEqual([
      'delivery.created',
      'delivery.dispatched',
      'delivery.assigned',
    ]);

    // The public tracking view and the widget: the same events, the merchant's list less the ignored ones.
    const tracking = (await stack.request('GET', `/v1/deliveries/${created.id}/tracking`)).body;
    expect(tracking.events).toEqual(
      kept.map((e: { event_type: string; occurred_at: string }) => ({
        event_type: e.event_type,
        occurred_at: e.occurred_at,
      })),
    );
    const widget = await stack.request('GET', `/v1/widget/deliveries/${created.id}`, {
      key: m.tenant.publishable_key,
      headers: { origin: SHOP },
    });
    expect(widget.status).toBe(200);
    expect(widget.body.events).toEqual(
      kept.map((e: { id: string; event_type: string; occurred_at: string }) => ({
        id: e.id,
        event_type: e.event_type,
        occurred_at: e.occurred_at,
      })),
    );
  });

  it('the OpenAPI document describes the top-level ignored flag of DeliveryEvent', async () => {
    const doc = (await stack.request('GET', '/v1/openapi.json')).body;
    expect(doc.components.schemas.DeliveryEvent.properties.ignored).toMatchObject({ type: 'boolean' });
  });
});
