// The cash-on-delivery ledger's invariants, property-based (fast-check) against the real Postgres ledger (issue 28
// item 8): random sequences of collections (with replays), courier and merchant remittances (right and wrong amounts,
// fees within and above the locked fee, mixed merchants, items already remitted, repeated remittance refs),
// confirmations and disputes. After every sequence: every journal transaction balances; for every (tenant, courier)
// collected = remitted + fee_deducted + outstanding, each equal to what a plain model of the sequence says; and every
// request the model says must fail failed with its code and booked nothing.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool, type Pool } from '../../src/platform/db.js';
import { collectCash } from '../../src/cod/collection.js';
import { createRemittance } from '../../src/cod/remittances.js';
import { balances, settle } from '../../src/cod/service.js';
import { ApiError } from '../../src/http/problem.js';

let pool: Pool;
const FEE = 100_000;

beforeAll(() => {
  pool = createPool(inject('databaseUrl'), 4);
});
afterAll(async () => {
  await pool?.end();
});

interface World {
  companyId: string;
  tenants: string[];
  deliveries: { id: string; tenant: string; ref: string; expected: number }[];
}

/** A courier company, two tenants and six COD deliveries (three each), straight in Postgres. */
async function world(): Promise<World> {
  const companyId = randomUUID();
  const slug = `prop-${companyId.slice(0, 8)}`;
  await pool.query(
    `INSERT INTO courier_companies (id, name, slug, adapter, fleet_secret) VALUES ($1, $2, $3, 'rate_card', 'whsec_x')`,
    [companyId, slug, slug],
  );
  const tenants = [randomUUID(), randomUUID()];
  const deliveries: World['deliveries'] = [];
  for (const tenant of tenants) {
    await pool.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [tenant, 'prop']);
    for (let n = 0; n < 3; n++) {
      const id = randomUUID();
      const quote = randomUUID();
      const expected = 100_000 * (n + 2) + deliveries.length * 1000;
      await pool.query(
        `INSERT INTO quotes (id, tenant_id, company_id, fee_aoa, eta_minutes, valid_until, origin, destination, parcel, payload_hash)
         VALUES ($1, $2, $3, $4, 30, now(), '{}', '{}', '{}', 'x')`,
        [quote, tenant, companyId, FEE],
      );
      await pool.query(
        `INSERT INTO deliveries (id, tenant_id, reference, status, company_id, quote_id, origin, destination, parcel,
                                 payment_method, cash_collect_aoa, quoted_fee_aoa, courier_tracking_ref, livemode)
         VALUES ($1, $2, $3, 'delivered', $4, $5, '{}', '{}', '{}', 'cod', $6, $7, $8, true)`,
        [id, tenant, `PROP-${id.slice(0, 8)}`, companyId, quote, expected, FEE, `T-${id.slice(0, 8)}`],
      );
      deliveries.push({ id, tenant, ref: `T-${id.slice(0, 8)}`, expected });
    }
  }
  return { companyId, tenants, deliveries };
}

type Op =
  | { kind: 'collect'; d: number; short: number; declared: boolean }
  | { kind: 'remit'; items: number[]; fee: number; wrong: boolean; merchant: boolean; ref: number }
  | { kind: 'confirm' | 'dispute'; r: number };

/** Items mostly of one merchant (three deliveries each), now and then across both. */
const items = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.nat(1), fc.uniqueArray(fc.nat(2), { minLength: 1, maxLength: 3 }))
      .map(([t, is]) => is.map((i) => t * 3 + i)),
  },
  { weight: 1, arbitrary: fc.uniqueArray(fc.nat(5), { minLength: 2, maxLength: 3 }) },
);

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('collect' as const),
      d: fc.nat(5),
      short: fc.constantFrom(0, 0, 50_000),
      declared: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('remit' as const),
      items,
      fee: fc.constantFrom(0, 20_000, FEE, FEE + 1),
      wrong: fc.constantFrom(false, false, false, true),
      merchant: fc.constantFrom(false, false, false, true),
      ref: fc.nat(3),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('confirm' as const, 'dispute' as const), r: fc.nat(3) }) },
);

/** Most sequences start by collecting some deliveries, so that remittances find cash to hand over. */
const collectFirst = fc
  .uniqueArray(fc.nat(5), { maxLength: 6 })
  .map((ds) => ds.map((d): Op => ({ kind: 'collect', d, short: d === 1 ? 50_000 : 0, declared: d !== 2 })));

interface Model {
  collected: Map<number, number>;
  remittedBy: Map<number, number>;
  remittances: { id: string; items: number[]; fee: number; status: string; body: string; ref: number | null }[];
}

const codeOf = async (p: Promise<unknown>): Promise<string | null> => {
  try {
    await p;
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
};

async function run(w: World, ops: Op[]): Promise<Model> {
  const m: Model = { collected: new Map(), remittedBy: new Map(), remittances: [] };
  const refs = new Map<number, { tenant: string; body: string; id: string }>();
  for (const o of ops) {
    if (o.kind === 'collect') {
      const d = w.deliveries[o.d];
      const amount = o.declared ? d.expected - o.short : null;
      const ids = { collectedEventId: randomUUID(), discrepancyEventId: randomUUID() };
      const r = await collectCash(pool, {
        deliveryId: d.id,
        collectedAoa: amount,
        ...ids,
        occurredAt: new Date().toISOString(),
        webhooks: false,
      });
      expect(r.booked).toBe(!m.collected.has(o.d));
      if (!m.collected.has(o.d)) m.collected.set(o.d, amount ?? d.expected);
    } else if (o.kind === 'remit') {
      await remit(w, m, o, refs);
    } else {
      const r = m.remittances[o.r];
      if (!r) continue;
      const tenant = w.deliveries[r.items[0]].tenant;
      const scope = { tenantId: tenant, livemode: true };
      const outcome =
        o.kind === 'confirm' ? { status: 'confirmed' as const } : { status: 'disputed' as const, reason: 'x' };
      const code = await codeOf(settle(pool, scope, r.id, outcome));
      expect(code).toBe(r.status === 'reported' ? null : 'remittance_not_reported');
      if (r.status === 'reported') {
        r.status = outcome.status;
        if (outcome.status === 'disputed') for (const i of r.items) m.remittedBy.delete(i);
      }
    }
  }
  return m;
}

async function remit(w: World, m: Model, o: Extract<Op, { kind: 'remit' }>, refs: Map<number, any>): Promise<void> {
  const ds = o.items.map((i) => w.deliveries[i]);
  const tenant = ds[0].tenant;
  const items = o.items.map((i) => {
    const collected = m.collected.get(i) ?? w.deliveries[i].expected;
    const fee = Math.min(o.fee, collected);
    return {
      tracking_ref: w.deliveries[i].ref,
      amount_aoa: collected - fee + (o.wrong ? 1 : 0),
      fee_deducted_aoa: fee,
    };
  });
  const ref = o.merchant ? null : `R${o.ref}`;
  const body = JSON.stringify(items);
  const request = {
    source: o.merchant ? ('merchant' as const) : ('courier' as const),
    companyId: w.companyId,
    scope: o.merchant ? { tenantId: tenant, livemode: true } : null,
    remittanceRef: ref,
    paidAt: '2026-11-24T10:00:00.000Z',
    method: 'cash' as const,
    bankReference: null,
    items,
  };
  // What the model expects, in the order the service checks.
  const previous = ref ? refs.get(o.ref) : undefined;
  let expected: string | null;
  if (previous) expected = previous.body === body ? 'replay' : 'remittance_ref_reused';
  else if (o.merchant && ds.some((d) => d.tenant !== tenant)) expected = 'validation_failed';
  else if (!o.merchant && ds.some((d) => d.tenant !== tenant)) expected = 'remittance_mixed_tenants';
  else if (o.items.some((i) => !m.collected.has(i))) expected = 'validation_failed';
  else if (o.items.some((i) => m.remittedBy.has(i))) expected = 'already_remitted';
  else if (o.wrong || items.some((i) => i.fee_deducted_aoa > FEE)) expected = 'remittance_amount_mismatch';
  else expected = null;
  let outcome: Awaited<ReturnType<typeof createRemittance>> | null = null;
  const code = await codeOf(createRemittance(pool, request).then((x) => (outcome = x)));
  if (expected === 'replay') {
    expect(code).toBeNull();
    expect(outcome!.created).toBe(false);
    expect(outcome!.remittance.id).toBe(previous.id);
    return;
  }
  expect(code).toBe(expected);
  if (code !== null) return;
  const id = outcome!.remittance.id;
  m.remittances.push({
    id,
    items: o.items,
    fee: o.fee,
    status: o.merchant ? 'confirmed' : 'reported',
    body,
    ref: o.ref,
  });
  for (const i of o.items) m.remittedBy.set(i, m.remittances.length - 1);
  if (ref) refs.set(o.ref, { tenant, body, id });
}

async function check(w: World, m: Model): Promise<void> {
  const unbalanced = await pool.query(
    `SELECT j.id FROM cod_journal j JOIN cod_entries e ON e.transaction_id = j.id WHERE j.company_id = $1
      GROUP BY j.id HAVING sum(CASE WHEN e.direction = 'debit' THEN e.amount_aoa ELSE -e.amount_aoa END) <> 0 OR count(*) < 2`,
    [w.companyId],
  );
  expect(unbalanced.rows).toEqual([]);
  for (const tenant of w.tenants) {
    const mine = [...m.collected.entries()].filter(([i]) => w.deliveries[i].tenant === tenant);
    const line = (await balances(pool, { tenantId: tenant, livemode: true })).find((b) => b.company_id === w.companyId);
    const collected = mine.reduce((s, [, a]) => s + a, 0);
    if (mine.length === 0) {
      expect(line).toBeUndefined();
      continue;
    }
    expect(line!.collected_aoa).toBe(collected);
    expect(line!.collected_aoa).toBe(line!.remitted_aoa + line!.fee_deducted_aoa + line!.outstanding_aoa);
    const fees = mine
      .filter(([i]) => m.remittedBy.has(i))
      .reduce((s, [i, a]) => s + Math.min(m.remittances[m.remittedBy.get(i)!].fee, a), 0);
    const remitted = mine.filter(([i]) => m.remittedBy.has(i)).reduce((s, [, a]) => s + a, 0) - fees;
    expect(line!.fee_deducted_aoa).toBe(fees);
    expect(line!.remitted_aoa).toBe(remitted);
  }
}

describe('the cash-on-delivery ledger (property-based, real Postgres)', () => {
  it('every transaction balances; collected = remitted + fee_deducted + outstanding, as the model says', async () => {
    await fc.assert(
      fc.asyncProperty(collectFirst, fc.array(op, { minLength: 5, maxLength: 40 }), async (first, ops) => {
        const w = await world();
        const m = await run(w, [...first, ...ops]);
        await check(w, m);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
