// Cash on delivery end to end on the real stack (issue 28; design.md "Cash on delivery"): collection at `delivered`
// (cod.collected, cod.discrepancy), the courier's signed remittance and every rule and error code, confirm and dispute,
// the merchant's own remittance, balances, the CSV statement, the cod line of a delivery, tenant and mode isolation,
// the test helper, and the ledger's own guarantees (balanced, append-only).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signFleetEvent, type Simulator } from '../../simulator/server.js';
import { linkCouriers } from '../../src/couriers/service.js';
import type { CompanyConfig } from '../../simulator/types.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitFor,
  type Merchant,
} from '../helpers/fixtures.js';
import { deliveryWith, until } from '../helpers/test-mode.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let sim: Simulator;
let company: CompanyConfig;
let m: Merchant;
let other: Merchant;

beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack({ webhookScheduleMs: [0], simulatedCourierStepMs: 200 });
  company = simCompany();
  m = await merchantWith(stack, sim, [company]);
  // A second merchant of the same courier company (for remittance_mixed_tenants and isolation).
  other = { ...m, tenant: await stack.tenant(), couriers: m.couriers };
  await linkCouriers(stack.pool, other.tenant.tenant_id, company.slug);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const types = (d: { events: { event_type: string }[] }) => d.events.map((e) => e.event_type);

/** A delivered COD delivery of `merchant` (the simulator reports the cash, less the company's short payment). */
async function deliveredCod(merchant: Merchant, cash = 1_500_000, short = 0) {
  sim.control.configure(company.slug, { cod_short_payment_aoa: short });
  const created = await createDeliveryFor(stack, merchant, { payment_method: 'cod', cash_collect_aoa: cash });
  const key = merchant.tenant.secret_key;
  const assigned = await waitFor(stack, key, created.id, (d) => d.courier?.tracking_ref && d.status === 'assigned');
  const ref = assigned.courier.tracking_ref as string;
  await sim.control.sendEvent(company.slug, { tracking_ref: ref, event_type: 'in_transit' });
  await waitFor(stack, key, created.id, (d) => d.status === 'in_transit');
  await sim.control.deliver(company.slug, ref);
  const d = await waitFor(stack, key, created.id, (x) => types(x).includes('cod.collected'));
  return { id: created.id as string, ref, delivery: d, fee: created.quoted_fee_aoa as number };
}

/** Posts a signed remittance as the courier (the raw body is what the test chose). */
async function report(body: unknown, secret = company.fleet_secret, slug = company.slug) {
  const raw = JSON.stringify(body);
  return stack.request('POST', `/v1/fleet/${slug}/remittances`, {
    body: raw,
    headers: signFleetEvent(secret, raw),
  });
}

const remittance = (items: unknown[], ref = `REM-${randomUUID().slice(0, 8)}`) => ({
  remittance_ref: ref,
  paid_at: '2026-11-24T17:30:00.000Z',
  method: 'bank_transfer',
  items,
});

describe('collection', () => {
  it('books the cash at delivered: cod.collected, the cod line, the balances', async () => {
    const { delivery } = await deliveredCod(m);
    const collected = delivery.events.find((e: any) => e.event_type === 'cod.collected');
    expect(collected.payload).toMatchObject({
      expected_aoa: 1_500_000,
      collected_aoa: 1_500_000,
      company_id: m.couriers[company.slug],
      declared: true,
    });
    expect(types(delivery)).not.toContain('cod.discrepancy');
    expect(delivery.cod).toEqual({
      expected_aoa: 1_500_000,
      collected_aoa: 1_500_000,
      remitted_aoa: 0,
      fee_deducted_aoa: 0,
      status: 'collected',
      remittance_id: null,
    });
    // The recipient's timeline shows no cash events.
    const tracking = await stack.request('GET', `/v1/deliveries/${delivery.id}/tracking`, { key: m.tenant.secret_key });
    if (tracking.status === 200) expect(types(tracking.body)).not.toContain('cod.collected');
  });

  it('a short payment raises cod.discrepancy with the difference', async () => {
    const { delivery } = await deliveredCod(m, 1_000_000, 150_000);
    const d = delivery.events.find((e: any) => e.event_type === 'cod.discrepancy');
    expect(d?.payload).toMatchObject({ expected_aoa: 1_000_000, collected_aoa: 850_000, difference_aoa: -150_000 });
    expect(delivery.cod.collected_aoa).toBe(850_000);
  });

  it('a prepaid delivery has cod null and books nothing', async () => {
    const created = await createDeliveryFor(stack, m);
    expect(created.cod).toBeNull();
  });

  it('refuses a negative or fractional cash_collected_aoa with a pointer', async () => {
    for (const bad of [-1, 1.5, '100']) {
      const raw = JSON.stringify({
        tracking_ref: 'x',
        event_type: 'delivered',
        occurred_at: new Date().toISOString(),
        payload: { cash_collected_aoa: bad },
      });
      const res = await stack.request('POST', `/v1/fleet/${company.slug}/events`, {
        body: raw,
        headers: signFleetEvent(company.fleet_secret, raw),
      });
      stack.expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors.map((e: any) => e.pointer)).toContain('/payload/cash_collected_aoa');
    }
  });
});

describe("the courier's remittance", () => {
  it('201 reported, 200 for the same ref and body, 409 for another body; cod.remitted per delivery', async () => {
    const a = await deliveredCod(m);
    const b = await deliveredCod(m, 800_000);
    const body = remittance([
      { tracking_ref: a.ref, amount_aoa: 1_450_000, fee_deducted_aoa: 50_000 },
      { tracking_ref: b.ref, amount_aoa: 800_000 },
    ]);
    const first = await report(body);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      remittance_ref: body.remittance_ref,
      tenant_id: m.tenant.tenant_id,
      total_aoa: 2_250_000,
      status: 'reported',
    });
    const again = await report(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const changed = await report({ ...body, method: 'cash' });
    stack.expectProblem(changed, 409, 'remittance_ref_reused');

    const key = m.tenant.secret_key;
    const d = await waitFor(stack, key, a.id, (x) => types(x).includes('cod.remitted'));
    expect(d.cod).toMatchObject({ remitted_aoa: 1_450_000, fee_deducted_aoa: 50_000, status: 'remitted' });
    expect(d.cod.remittance_id).toBe(first.body.id);
    expect(types(d).filter((t: string) => t === 'cod.remitted')).toHaveLength(1);

    const read = await stack.request('GET', `/v1/cod/remittances/${first.body.id}`, { key });
    expect(read.body).toMatchObject({
      status: 'reported',
      source: 'courier',
      total_aoa: 2_250_000,
      fee_deducted_aoa: 50_000,
    });
    expect(read.body.items).toHaveLength(2);

    // already remitted: a pointer per item
    const twice = await report(remittance([{ tracking_ref: a.ref, amount_aoa: 1_500_000 }]));
    stack.expectProblem(twice, 422, 'already_remitted');
    expect(twice.body.errors[0].pointer).toBe('/items/0');

    // confirm, then a second confirm or a dispute is 409
    const confirmed = await stack.request('POST', `/v1/cod/remittances/${first.body.id}/confirm`, { key });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('confirmed');
    stack.expectProblem(
      await stack.request('POST', `/v1/cod/remittances/${first.body.id}/confirm`, { key }),
      409,
      'remittance_not_reported',
    );
    stack.expectProblem(
      await stack.request('POST', `/v1/cod/remittances/${first.body.id}/dispute`, { key, body: { reason: 'x' } }),
      409,
      'remittance_not_reported',
    );
    const after = await stack.request('GET', `/v1/deliveries/${a.id}`, { key });
    expect(after.body.cod.status).toBe('confirmed');
  });

  it('remittance_amount_mismatch: a pointer per wrong item; a fee above the locked fee', async () => {
    const a = await deliveredCod(m);
    const b = await deliveredCod(m);
    const res = await report(
      remittance([
        { tracking_ref: a.ref, amount_aoa: 1_400_000 },
        { tracking_ref: b.ref, amount_aoa: 1_500_000 },
      ]),
    );
    stack.expectProblem(res, 422, 'remittance_amount_mismatch');
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/items/0/amount_aoa' })]);
    const tooMuchFee = await report(
      remittance([{ tracking_ref: a.ref, amount_aoa: 1_500_000 - (a.fee + 1), fee_deducted_aoa: a.fee + 1 }]),
    );
    stack.expectProblem(tooMuchFee, 422, 'remittance_amount_mismatch');
    expect(tooMuchFee.body.errors[0].pointer).toBe('/items/0/fee_deducted_aoa');
    // nothing was booked by the refused requests
    const d = await stack.request('GET', `/v1/deliveries/${a.id}`, { key: m.tenant.secret_key });
    expect(d.body.cod.status).toBe('collected');
  });

  it('remittance_mixed_tenants; unknown items; unsigned requests', async () => {
    const mine = await deliveredCod(m);
    const theirs = await deliveredCod(other);
    const res = await report(
      remittance([
        { tracking_ref: mine.ref, amount_aoa: 1_500_000 },
        { tracking_ref: theirs.ref, amount_aoa: 1_500_000 },
      ]),
    );
    stack.expectProblem(res, 422, 'remittance_mixed_tenants');
    const unknown = await report(remittance([{ tracking_ref: 'NOPE', amount_aoa: 1 }]));
    stack.expectProblem(unknown, 422, 'validation_failed');
    expect(unknown.body.errors[0].pointer).toBe('/items/0/tracking_ref');
    const unsigned = await stack.request('POST', `/v1/fleet/${company.slug}/remittances`, {
      body: remittance([{ tracking_ref: mine.ref, amount_aoa: 1_500_000 }]),
    });
    stack.expectProblem(unsigned, 401, 'unauthorized');
    const extra = await report({ ...remittance([{ tracking_ref: mine.ref, amount_aoa: 1_500_000 }]), extra: 1 });
    stack.expectProblem(extra, 422, 'validation_failed');
    expect(extra.body.errors[0]).toMatchObject({ pointer: '/extra', code: 'unknown_field' });
  });

  it('a dispute puts the cash back with the courier: outstanding again, remittable anew', async () => {
    const a = await deliveredCod(m);
    const sent = await sim.control.remit(company.slug, { tracking_refs: [a.ref], fee_deducted_aoa: 10_000 });
    expect(sent.status).toBe(201);
    const id = (sent.body as any).id;
    const key = m.tenant.secret_key;
    const disputed = await stack.request('POST', `/v1/cod/remittances/${id}/dispute`, {
      key,
      body: { reason: 'nothing arrived' },
    });
    expect(disputed.status).toBe(200);
    expect(disputed.body).toMatchObject({ status: 'disputed', dispute_reason: 'nothing arrived' });
    const d = await stack.request('GET', `/v1/deliveries/${a.id}`, { key });
    expect(d.body.cod).toMatchObject({
      status: 'collected',
      remitted_aoa: 0,
      fee_deducted_aoa: 0,
      remittance_id: null,
    });
    const again = await report(remittance([{ tracking_ref: a.ref, amount_aoa: 1_500_000 }]));
    expect(again.status).toBe(201);
  });
});

describe("the merchant's side", () => {
  it('records cash handed over in person (confirmed), lists, reads, the CSV statement, balances', async () => {
    const a = await deliveredCod(m, 700_000);
    const key = m.tenant.secret_key;
    const companyId = m.couriers[company.slug];
    const res = await stack.request('POST', '/v1/cod/remittances', {
      key,
      body: {
        company_id: companyId,
        paid_at: new Date().toISOString(),
        method: 'cash',
        items: [{ delivery_id: a.id, amount_aoa: 700_000 }],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      status: 'confirmed',
      source: 'merchant',
      total_aoa: 700_000,
      remittance_ref: null,
    });
    const list = await stack.request('GET', `/v1/cod/remittances?company_id=${companyId}&limit=2`, { key });
    expect(list.status).toBe(200);
    expect(list.body.data[0].id).toBe(res.body.id);
    expect(list.body.pagination).toMatchObject({ limit: 2, offset: 0 });

    const csv = await fetch(`${stack.url}/v1/cod/remittances?company_id=${companyId}`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toMatch(/^remittance_id,remittance_ref,/);
    expect(lines.some((l) => l.includes(a.id) && l.includes(',700000,0'))).toBe(true);
    expect(lines.at(-1)).toMatch(/^total,/);

    const balances = await stack.request('GET', '/v1/cod/balances', { key });
    const line = balances.body.data.find((b: any) => b.company_id === companyId);
    expect(line.collected_aoa).toBe(line.remitted_aoa + line.fee_deducted_aoa + line.outstanding_aoa);
    expect(line.overdue_aoa).toBe(0);
  });

  it('another tenant and the other mode see nothing of it', async () => {
    const list = await stack.request('GET', '/v1/cod/remittances', { key: m.tenant.secret_key });
    const id = list.body.data[0].id;
    for (const key of [other.tenant.secret_key, m.tenant.test_secret_key]) {
      stack.expectProblem(await stack.request('GET', `/v1/cod/remittances/${id}`, { key }), 404, 'not_found');
      stack.expectProblem(await stack.request('POST', `/v1/cod/remittances/${id}/confirm`, { key }), 404, 'not_found');
    }
    const test = await stack.request('GET', '/v1/cod/balances', { key: m.tenant.test_secret_key });
    expect(test.body.data).toEqual([]);
  });

  it('remittance terms: PUT /v1/settings/cod', async () => {
    const key = m.tenant.secret_key;
    const companyId = m.couriers[company.slug];
    const res = await stack.request('PUT', '/v1/settings/cod', {
      key,
      body: { company_id: companyId, remittance_terms_hours: 24 },
    });
    expect(res.status).toBe(200);
    expect(res.body.remittance_terms).toEqual([{ company_id: companyId, remittance_terms_hours: 24 }]);
    const bad = await stack.request('PUT', '/v1/settings/cod', {
      key,
      body: { company_id: randomUUID(), remittance_terms_hours: 24 },
    });
    stack.expectProblem(bad, 422, 'validation_failed');
  });
});

describe('test mode', () => {
  it('a simulated courier collects the expected cash; POST /v1/test_helpers/cod/remit remits it', async () => {
    const key = m.tenant.test_secret_key;
    const created = await deliveryWith(stack, key, 'test-auto', { payment_method: 'cod', cash_collect_aoa: 990_000 });
    const d = await until(stack, key, created.id, (x) => types(x).includes('cod.collected'), 30_000);
    expect(d.cod).toMatchObject({ collected_aoa: 990_000, status: 'collected' });
    const companyId = d.company_id;
    const res = await stack.request('POST', '/v1/test_helpers/cod/remit', { key, body: { company_id: companyId } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'reported', source: 'test_helper', livemode: false });
    expect(res.body.items.map((i: any) => i.delivery_id)).toContain(created.id);
    const none = await stack.request('POST', '/v1/test_helpers/cod/remit', { key, body: { company_id: companyId } });
    stack.expectProblem(none, 422, 'validation_failed');
    const live = await stack.request('POST', '/v1/test_helpers/cod/remit', {
      key: m.tenant.secret_key,
      body: { company_id: companyId },
    });
    stack.expectProblem(live, 404, 'not_found');
  }, 60_000);
});

describe('the ledger', () => {
  it('every journal transaction balances, and entries can be neither changed nor deleted', async () => {
    const { rows } = await stack.pool.query(
      `SELECT transaction_id, sum(CASE WHEN direction = 'debit' THEN amount_aoa ELSE -amount_aoa END)::bigint AS net
         FROM cod_entries GROUP BY transaction_id HAVING sum(CASE WHEN direction = 'debit' THEN amount_aoa ELSE -amount_aoa END) <> 0`,
    );
    expect(rows).toEqual([]);
    await expect(stack.pool.query('UPDATE cod_entries SET amount_aoa = amount_aoa + 1')).rejects.toThrow(/append-only/);
    await expect(stack.pool.query('DELETE FROM cod_journal')).rejects.toThrow(/append-only/);
  });
});
