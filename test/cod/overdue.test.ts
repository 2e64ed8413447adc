// Overdue cash on delivery (issue 28 item 5) on the real stack: remittance terms per courier link (the tenant's
// settings and the admin CLI), overdue_aoa and oldest_outstanding_at in the balances, cod.overdue once per delivery
// from the overdue sweep's workflow, and the figures behind the delivery_cod_overdue_aoa gauge.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server.js';
import type { CompanyConfig } from '../../simulator/types.js';
import { buildProgram } from '../../src/cli/index.js';
import { overdueByCompany } from '../../src/cod/repository.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitFor,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let sim: Simulator;
let company: CompanyConfig;
let m: Merchant;

beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack({ webhookScheduleMs: [0] });
  company = simCompany();
  m = await merchantWith(stack, sim, [company]);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const types = (d: { events: { event_type: string }[] }) => d.events.map((e) => e.event_type);

async function deliveredCod(cash: number) {
  const created = await createDeliveryFor(stack, m, { payment_method: 'cod', cash_collect_aoa: cash });
  const key = m.tenant.secret_key;
  const assigned = await waitFor(stack, key, created.id, (d) => d.courier?.tracking_ref && d.status === 'assigned');
  const ref = assigned.courier.tracking_ref as string;
  await sim.control.sendEvent(company.slug, { tracking_ref: ref, event_type: 'in_transit' });
  await waitFor(stack, key, created.id, (d) => d.status === 'in_transit');
  await sim.control.deliver(company.slug, ref);
  await waitFor(stack, key, created.id, (x) => types(x).includes('cod.collected'));
  return { id: created.id as string, ref };
}

/** Runs the overdue sweep once, as the cod-overdue schedule would. */
const sweep = () =>
  stack.temporal.workflow.execute('codOverdueWorkflow', {
    taskQueue: stack.config.taskQueue,
    workflowId: `cod-overdue-test-${randomUUID()}`,
    args: [],
  }) as Promise<{ raised: number }>;

async function admin(args: string[]): Promise<any> {
  let out = '';
  await buildProgram(
    () => stack.pool,
    (t) => (out += t),
  ).parseAsync(['node', 'admin', ...args]);
  return JSON.parse(out);
}

describe('overdue cash', () => {
  it('terms apply to new collections; past them: overdue_aoa, cod.overdue once, the gauge', async () => {
    const key = m.tenant.secret_key;
    const companyId = m.couriers[company.slug];
    const set = await admin([
      'cod',
      'terms',
      '--tenant',
      m.tenant.tenant_id,
      '--courier',
      company.slug,
      '--hours',
      '2',
      '--json',
    ]);
    expect(set.remittance_terms).toEqual([{ company_id: companyId, remittance_terms_hours: 2 }]);

    const late = await deliveredCod(600_000);
    const onTime = await deliveredCod(400_000);
    const { rows } = await stack.pool.query(
      `SELECT delivery_id, round(extract(epoch FROM due_at - collected_at) / 3600) AS hours FROM cod_collections WHERE delivery_id = ANY($1)`,
      [[late.id, onTime.id]],
    );
    expect(rows.map((r) => Number(r.hours))).toEqual([2, 2]);

    // The first collection's terms run out (moved back in time: the sweep compares with now()).
    await stack.pool.query(`UPDATE cod_collections SET due_at = now() - interval '1 minute' WHERE delivery_id = $1`, [
      late.id,
    ]);
    const balances = (await stack.request('GET', '/v1/cod/balances', { key })).body.data;
    const line = balances.find((b: any) => b.company_id === companyId);
    expect(line).toMatchObject({ collected_aoa: 1_000_000, outstanding_aoa: 1_000_000, overdue_aoa: 600_000 });
    expect(Date.parse(line.oldest_outstanding_at)).toBeLessThanOrEqual(Date.now());

    expect((await sweep()).raised).toBeGreaterThanOrEqual(1);
    await sweep();
    const d = await waitFor(stack, key, late.id, (x) => types(x).includes('cod.overdue'));
    const overdue = d.events.filter((e: any) => e.event_type === 'cod.overdue');
    expect(overdue).toHaveLength(1);
    expect(overdue[0].payload).toMatchObject({ company_id: companyId, collected_aoa: 600_000 });
    const other = await stack.request('GET', `/v1/deliveries/${onTime.id}`, { key });
    expect(types(other.body)).not.toContain('cod.overdue');

    const gauge = await overdueByCompany(stack.pool);
    expect(gauge.find((g) => g.courier === company.slug)?.overdue_aoa).toBe(600_000);

    // Remitted: no longer overdue.
    const sent = await sim.control.remit(company.slug, { tracking_refs: [late.ref] });
    expect(sent.status).toBe(201);
    const after = (await stack.request('GET', '/v1/cod/balances', { key })).body.data;
    expect(after.find((b: any) => b.company_id === companyId)).toMatchObject({
      overdue_aoa: 0,
      outstanding_aoa: 400_000,
    });
    expect((await overdueByCompany(stack.pool)).find((g) => g.courier === company.slug)?.overdue_aoa).toBe(0);

    const reset = await admin([
      'cod',
      'terms',
      '--tenant',
      m.tenant.tenant_id,
      '--courier',
      company.slug,
      '--default',
      '--json',
    ]);
    expect(reset.remittance_terms).toEqual([]);
  }, 60_000);

  it('GET /v1/settings/cod shows the default and the terms set', async () => {
    const res = await stack.request('GET', '/v1/settings/cod', { key: m.tenant.secret_key });
    expect(res.status).toBe(200);
    expect(res.body.default_remittance_terms_hours).toBe(48);
    const bad = await stack.request('PUT', '/v1/settings/cod', {
      key: m.tenant.secret_key,
      body: { company_id: m.couriers[company.slug], remittance_terms_hours: 0 },
    });
    stack.expectProblem(bad, 422, 'validation_failed');
    expect(bad.body.errors[0].pointer).toBe('/remittance_terms_hours');
  });
});
