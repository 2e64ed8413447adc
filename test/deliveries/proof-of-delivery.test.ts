// Proof of delivery (design.md "Attempts, returns and proof of delivery"): the `proof` of a courier's `delivered`
// event, shown to the merchant as `proof_of_delivery`, never on the widget view, public tracking or the tracking page.
// Through the fleet route (the courier simulator, which delivers with proof by default) and the test helper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server.js';
import { createDeliveryFor, merchantWith, simCompany, startSimulator, waitFor } from '../helpers/fixtures.js';
import { deliveryWith } from '../helpers/test-mode.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let sim: Simulator;
const SHOP = 'https://loja.example.ao';

beforeAll(async () => {
  stack = await startStack();
  sim = await startSimulator();
});
afterAll(async () => {
  await sim?.close();
  await stack?.close();
});

const PROOF = {
  recipient_name: 'Ana Domingos',
  photo_url: 'https://cdn.courier.example/pod/1.jpg',
  signature_url: 'https://cdn.courier.example/pod/1-signature.png',
  location: { lat: -8.8383, lng: 13.2344 },
};

/** A test-manual delivery of a tenant whose publishable key allows SHOP, moved to in_transit. */
async function inTransit() {
  const t = await stack.tenant([SHOP]);
  const key = t.test_secret_key;
  const d = await deliveryWith(stack, key, 'test-manual');
  const advance = (body: unknown) =>
    stack.request('POST', `/v1/test_helpers/deliveries/${d.id}/advance`, { key, body });
  expect((await advance({ to: 'in_transit' })).status).toBe(200);
  return { t, key, d, advance };
}

describe('proof of delivery', () => {
  it("the test helper's proof is the merchant's proof_of_delivery, and never on widget, tracking or the page", async () => {
    const { t, key, d, advance } = await inTransit();
    const before = await stack.request('GET', `/v1/deliveries/${d.id}`, { key });
    expect(before.body.proof_of_delivery).toBeNull();
    const delivered = await advance({ to: 'delivered', proof: PROOF });
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(200);
    expect(delivered.body.proof_of_delivery).toEqual(PROOF);
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, { key })).body.proof_of_delivery).toEqual(PROOF);

    const leaks = (text: string) => text.includes('cdn.courier.example') || text.includes('Ana Domingos');
    const widget = await stack.request('GET', `/v1/widget/deliveries/${d.id}`, {
      key: t.test_publishable_key,
      headers: { origin: SHOP },
    });
    expect(widget.status).toBe(200);
    expect(widget.body).not.toHaveProperty('proof_of_delivery');
    expect(leaks(JSON.stringify(widget.body))).toBe(false);
    const tracking = await stack.request('GET', `/v1/deliveries/${d.id}/tracking`);
    expect(tracking.status).toBe(200);
    expect(leaks(JSON.stringify(tracking.body))).toBe(false);
    const page = await fetch(`${stack.url}/track/${d.id}`);
    expect(page.status).toBe(200);
    expect(leaks(await page.text())).toBe(false);
  });

  it('a delivery handed over without proof has proof_of_delivery null', async () => {
    const { key, d, advance } = await inTransit();
    const delivered = await advance({ to: 'delivered' });
    expect(delivered.status).toBe(200);
    expect(delivered.body.proof_of_delivery).toBeNull();
    const listed = await stack.request('GET', `/v1/deliveries?limit=1`, { key });
    expect(listed.body.data[0]).not.toHaveProperty('proof_of_delivery');
    expect(d.proof_of_delivery).toBeNull();
  });

  it('a bad proof is 422 with its pointer and changes nothing: http URL, unknown field, empty, with another step', async () => {
    const { key, d, advance } = await inTransit();
    const cases: [unknown, string][] = [
      [{ to: 'delivered', proof: { photo_url: 'http://cdn.courier.example/1.jpg' } }, '/proof/photo_url'],
      [{ to: 'delivered', proof: { signature_url: 'javascript:alert(1)' } }, '/proof/signature_url'],
      [{ to: 'delivered', proof: { ...PROOF, gps: 'x' } }, '/proof/gps'],
      [{ to: 'delivered', proof: { location: { lat: 91, lng: 0 } } }, '/proof/location/lat'],
      [{ to: 'delivered', proof: {} }, '/proof'],
      [{ to: 'out_for_delivery', proof: PROOF }, '/proof'],
    ];
    for (const [body, pointer] of cases) {
      const res = await advance(body);
      stack.expectProblem(res, 422, 'validation_failed');
      expect(
        res.body.errors.map((e: { pointer: string }) => e.pointer),
        JSON.stringify(res.body),
      ).toContain(pointer);
    }
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, { key })).body.status).toBe('in_transit');
  });

  it("through the fleet route: the simulator's proof is stored; a bad proof is 422 to the courier", async () => {
    const company = simCompany({ auto_progress: { delay_ms: 50 } });
    const m = await merchantWith(stack, sim, [company]);
    const key = m.tenant.secret_key;
    const d = await createDeliveryFor(stack, m);
    const delivered = await waitFor(stack, key, d.id, (x) => x.status === 'delivered');
    expect(delivered.proof_of_delivery).toMatchObject({
      recipient_name: 'Ana Silva',
      photo_url: expect.stringMatching(/^https:\/\//),
      signature_url: expect.stringMatching(/^https:\/\//),
      location: { lat: -8.8521, lng: 13.2655 },
    });

    const bad = simCompany({ proof_of_delivery: { photo_url: 'http://insecure.example/1.jpg' } });
    const m2 = await merchantWith(stack, sim, [bad]);
    const d2 = await createDeliveryFor(stack, m2);
    const assigned = await waitFor(stack, m2.tenant.secret_key, d2.id, (x) => x.status === 'assigned');
    const ref = assigned.courier.tracking_ref;
    await sim.control.sendEvent(bad.slug, { tracking_ref: ref, event_type: 'in_transit' });
    await waitFor(stack, m2.tenant.secret_key, d2.id, (x) => x.status === 'in_transit');
    const sent = await sim.control.deliver(bad.slug, ref);
    expect(sent.response_status).toBe(422);
    expect((await stack.request('GET', `/v1/deliveries/${d2.id}`, { key: m2.tenant.secret_key })).body.status).toBe(
      'in_transit',
    );
    sim.control.configure(bad.slug, { proof_of_delivery: false });
    expect((await sim.control.deliver(bad.slug, ref)).response_status).toBe(202);
    const none = await waitFor(stack, m2.tenant.secret_key, d2.id, (x) => x.status === 'delivered');
    expect(none.proof_of_delivery).toBeNull();
  });
});
