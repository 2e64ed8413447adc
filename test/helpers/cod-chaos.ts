// Cash on delivery in the crash test (test/chaos; issue #28 item 8): three in twenty deliveries are cash on delivery
// over the plain companies, one in twenty over a company of its own whose couriers are always paid 500 Kz short (the
// simulator's `cod_short_payment_aoa`). While the kills go on, the couriers remit what was collected (the simulator's
// POST /_control/{slug}/remit, each remittance_ref sent again until answered, then once more: the same answer, nothing
// booked twice) and the merchant confirms every other remittance. At the end the ledger's invariants, in SQL against
// the test's database and through GET /v1/cod/balances: nothing booked twice, nothing lost.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { expect } from 'vitest';
import { createCourier, linkCouriers } from '../../src/couriers/service.js';
import { newFleetSecret, type Simulator } from '../../simulator/server.js';
import type { RemitResult } from '../../simulator/types.js';
import { sleep, type ChaosClient, type QuoteEntry, type Route } from './chaos.js';

const SHORT_AOA = 50_000;
const FEE_AOA = 20_000;

/** Cash on delivery for the `i`-th delivery: `short` (its own company, paid short), `plain`, or none. */
export function codOf(i: number): 'short' | 'plain' | null {
  if (i % 20 === 9) return 'short';
  if (i % 10 === 5 || i % 20 === 4) return 'plain'; // odd and even: both plain companies
  return null;
}

export interface CodChaos {
  /** Wraps the last mile's route: the short-paid ones to their company, the others never to it. */
  route(inner: Route): Route;
  /** createMany's extra fields: payment_method cod and cash_collect_aoa for the COD ones. */
  extra(i: number): Record<string, unknown>;
  /** Remittance rounds every `everyMs` until `until` resolves (and one more), then confirms every other one. */
  remitWhile(client: ChaosClient, until: Promise<unknown>, everyMs: number, log: (line: string) => void): Promise<void>;
  /** The ledger's invariants once everything settled. */
  expectLedger(client: ChaosClient, tenantId: string, planned: number, log: (line: string) => void): Promise<void>;
}

interface Sent {
  id: string;
  ref: string;
  slug: string;
  total: number;
}

/** Adds the short-paid company to the simulator and the tenant. */
export async function startCodChaos(sim: Simulator, pool: pg.Pool, tenantId: string): Promise<CodChaos> {
  const slug = `cod-short-${randomUUID().slice(0, 6)}`;
  const secret = newFleetSecret();
  sim.control.upsert({
    slug,
    fleet_secret: secret,
    pricing: { base_fee_aoa: 250_000 },
    auto_progress: { delay_ms: 400 },
    cod_short_payment_aoa: SHORT_AOA,
  });
  const courier = await createCourier(pool, {
    name: slug,
    slug,
    adapter: 'http',
    endpoint: sim.endpoint(slug),
    fleet_secret: secret,
    timeout_ms: 2000,
  });
  await linkCouriers(pool, tenantId, slug);
  const sent: Sent[] = [];
  let round = 0;

  return {
    route(inner) {
      return (i: number, quotes: QuoteEntry[]) => {
        const short = quotes.find((q) => q.company_id === courier.courier_id);
        if (codOf(i) === 'short' && short) return short;
        return inner(
          i,
          quotes.filter((q) => q.company_id !== courier.courier_id),
        );
      };
    },
    extra(i) {
      return codOf(i) ? { payment_method: 'cod', cash_collect_aoa: 1_000_000 + i * 100 } : {};
    },
    async remitWhile(client, until, everyMs, log) {
      let done = false;
      until.then(
        () => (done = true),
        () => (done = true),
      );
      while (!done) {
        await sleep(everyMs);
        await remitRound(sim, pool, tenantId, ++round, sent, log).catch((err) => {
          if (err?.name === 'AssertionError') throw err;
          log(`remittance round ${round} interrupted (${(err as Error).message}); next round`);
        });
      }
      // The last round must run, and chaos is still restarting Postgres: its query or a send may be cut off (CI met
      // `read ECONNRESET`). Another round picks up what is still unremitted.
      for (let attempt = 1; ; attempt++) {
        try {
          await remitRound(sim, pool, tenantId, ++round, sent, log);
          break;
        } catch (err) {
          if ((err as Error)?.name === 'AssertionError' || attempt >= 30) throw err;
          log(`last remittance round ${round} interrupted (${(err as Error).message}); again`);
          await sleep(1000);
        }
      }
      const confirmed = sent.filter((_, n) => n % 2 === 0);
      await Promise.all(confirmed.map((r) => confirm(client, r)));
      log(`${sent.length} remittances reported, ${confirmed.length} confirmed by the merchant`);
    },
    async expectLedger(client, tenantId, planned, log) {
      await expectLedgerInvariants({ pool, client, tenantId, planned, sent, shortCompany: courier.courier_id, log });
    },
  };
}

/**
 * One round: per company with collected, unremitted cash, one remittance of it (odd rounds keep a fee), sent until
 * answered, then sent again: 200 with the same answer.
 */
async function remitRound(
  sim: Simulator,
  pool: pg.Pool,
  tenantId: string,
  round: number,
  sent: Sent[],
  log: (line: string) => void,
) {
  const { rows } = await pool.query(
    `SELECT cc.slug, array_agg(d.courier_tracking_ref ORDER BY d.courier_tracking_ref) AS refs
       FROM cod_collections c JOIN deliveries d ON d.id = c.delivery_id JOIN courier_companies cc ON cc.id = c.company_id
      WHERE c.tenant_id = $1 AND c.remittance_id IS NULL GROUP BY cc.slug`,
    [tenantId],
  );
  for (const row of rows as { slug: string; refs: string[] }[]) {
    const ref = `chaos-${row.slug}-${round}`;
    const input = { tracking_refs: row.refs, remittance_ref: ref, ...(round % 2 ? { fee_deducted_aoa: FEE_AOA } : {}) };
    const first = await remitUntilAnswered(sim, row.slug, input);
    expect([200, 201], `${ref}: ${JSON.stringify(first.body)}`).toContain(first.status);
    const again = await remitUntilAnswered(sim, row.slug, { remittance_ref: ref });
    expect({ status: again.status, body: again.body }, `${ref} sent again`).toEqual({ status: 200, body: first.body });
    const body = first.body as { id: string; total_aoa: number };
    sent.push({ id: body.id, ref, slug: row.slug, total: body.total_aoa });
    log(`remittance ${ref}: ${row.refs.length} deliveries, ${body.total_aoa} centavos, sent again: 200`);
  }
}

/** The merchant confirms a reported remittance, retrying through outages under one Idempotency-Key. */
async function confirm(client: ChaosClient, r: Sent) {
  for (let n = 0; n < 600; n++) {
    const res = await client.once('POST', `/v1/cod/remittances/${r.id}/confirm`, undefined, {
      'idempotency-key': `confirm-${r.id}`,
    });
    if (res?.status === 200) return expect(res.json.status).toBe('confirmed');
    if (res?.status === 409) {
      // An earlier try took effect though its answer (and the idempotency record) was lost: it must show.
      const read = await client.persist('GET', `/v1/cod/remittances/${r.id}`);
      return expect(read.json.status, `${r.ref} after 409 ${JSON.stringify(res.json)}`).toBe('confirmed');
    }
    if (res && res.status < 500)
      throw new Error(`confirm ${r.ref} answered ${res.status}: ${JSON.stringify(res.json)}`);
    await sleep(1000);
  }
  throw new Error(`confirm ${r.ref} never answered`);
}

/** The simulator's POST /_control/{slug}/remit until the API answers (it may be down: the simulator then says 500). */
async function remitUntilAnswered(sim: Simulator, slug: string, input: Record<string, unknown>): Promise<RemitResult> {
  for (let n = 0; n < 600; n++) {
    const res = await fetch(`${sim.url}/_control/${slug}/remit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    }).catch(() => null);
    const result = res?.status === 200 ? ((await res.json()) as RemitResult) : null;
    if (result && result.status !== null && result.status < 500) return result;
    await sleep(1000);
  }
  throw new Error(`remittance ${String(input.remittance_ref)} never answered`);
}

async function expectLedgerInvariants(o: {
  pool: pg.Pool;
  client: ChaosClient;
  tenantId: string;
  planned: number;
  sent: Sent[];
  shortCompany: string;
  log: (line: string) => void;
}) {
  const { pool, tenantId } = o;
  const q = async (sql: string) => (await pool.query(sql, [tenantId])).rows;
  // Every journal transaction balances and has two entries at least.
  expect(
    await q(`SELECT j.id, j.kind, count(e.id)::int AS n,
                    coalesce(sum(e.amount_aoa) FILTER (WHERE e.direction = 'debit'), 0)::bigint AS debits,
                    coalesce(sum(e.amount_aoa) FILTER (WHERE e.direction = 'credit'), 0)::bigint AS credits
               FROM cod_journal j LEFT JOIN cod_entries e ON e.transaction_id = j.id WHERE j.tenant_id = $1
              GROUP BY j.id, j.kind
             HAVING count(e.id) < 2 OR coalesce(sum(e.amount_aoa) FILTER (WHERE e.direction = 'debit'), 0)
                                       <> coalesce(sum(e.amount_aoa) FILTER (WHERE e.direction = 'credit'), 0)`),
    'unbalanced journal transactions',
  ).toEqual([]);
  // Exactly one collection (row, journal transaction, cod.collected) per delivered COD delivery; none for others.
  const cod = await q(`SELECT d.id, d.company_id, d.status, d.cash_collect_aoa::bigint AS expected,
        (SELECT count(*) FROM cod_collections c WHERE c.delivery_id = d.id)::int AS rows,
        (SELECT min(collected_aoa) FROM cod_collections c WHERE c.delivery_id = d.id)::bigint AS collected,
        (SELECT count(*) FROM cod_journal j WHERE j.delivery_id = d.id AND j.kind = 'collection')::int AS journal,
        (SELECT count(*) FROM delivery_events e WHERE e.delivery_id = d.id AND e.event_type = 'cod.collected')::int AS events,
        (SELECT count(*) FROM delivery_events e WHERE e.delivery_id = d.id AND e.event_type = 'cod.discrepancy')::int AS discrepancies
       FROM deliveries d WHERE d.tenant_id = $1 AND d.payment_method = 'cod'`);
  expect(cod.length, 'COD deliveries').toBe(
    Array.from({ length: o.planned }, (_, i) => codOf(i)).filter(Boolean).length,
  );
  for (const d of cod) {
    const short = d.company_id === o.shortCompany;
    expect(d.status, d.id).toBe('delivered');
    expect(
      {
        rows: d.rows,
        journal: d.journal,
        events: d.events,
        discrepancies: d.discrepancies,
        collected: Number(d.collected),
      },
      d.id,
    ).toEqual({
      rows: 1,
      journal: 1,
      events: 1,
      discrepancies: short ? 1 : 0,
      collected: Number(d.expected) - (short ? SHORT_AOA : 0),
    });
  }
  expect(
    await q(`SELECT j.id FROM cod_journal j JOIN deliveries d ON d.id = j.delivery_id
                   WHERE j.tenant_id = $1 AND j.kind = 'collection' AND d.payment_method <> 'cod'`),
  ).toEqual([]);
  // Each remittance_ref booked once, each of the test's remittances there with one remittance transaction.
  const remittances = await q(`SELECT r.id, r.remittance_ref, r.status, r.total_aoa::bigint AS total,
        (SELECT count(*) FROM cod_journal j WHERE j.remittance_id = r.id AND j.kind = 'remittance')::int AS journal
       FROM cod_remittances r WHERE r.tenant_id = $1 ORDER BY r.remittance_ref COLLATE "C"`);
  expect(remittances.map((r) => [r.id, r.remittance_ref, Number(r.total), r.journal])).toEqual(
    [...o.sent].sort((a, b) => (a.ref < b.ref ? -1 : 1)).map((s) => [s.id, s.ref, s.total, 1]),
  );
  // cod.remitted once per remitted delivery, and no delivery in two remittances.
  expect(
    await q(`SELECT i.delivery_id, count(*)::int AS n,
                    (SELECT count(*) FROM delivery_events e WHERE e.delivery_id = i.delivery_id AND e.event_type = 'cod.remitted')::int AS events
               FROM cod_remittance_items i JOIN cod_remittances r ON r.id = i.remittance_id WHERE r.tenant_id = $1
              GROUP BY i.delivery_id HAVING count(*) <> 1 OR (SELECT count(*) FROM delivery_events e
                WHERE e.delivery_id = i.delivery_id AND e.event_type = 'cod.remitted') <> 1`),
  ).toEqual([]);
  await expectBalances(o);
}

/** Per company: the ledger's figures, the collections' and the remittances', and GET /v1/cod/balances agree. */
async function expectBalances(o: {
  pool: pg.Pool;
  client: ChaosClient;
  tenantId: string;
  log: (line: string) => void;
}) {
  const { rows } = await o.pool.query(
    `SELECT company_id,
            (SELECT coalesce(sum(CASE WHEN direction = 'credit' THEN amount_aoa ELSE -amount_aoa END), 0) FROM cod_entries e
              WHERE e.tenant_id = $1 AND e.company_id = c.company_id AND account = 'customer_payments')::bigint AS collected,
            (SELECT coalesce(sum(CASE WHEN direction = 'debit' THEN amount_aoa ELSE -amount_aoa END), 0) FROM cod_entries e
              WHERE e.tenant_id = $1 AND e.company_id = c.company_id
                AND account IN ('remittances_in_transit', 'merchant_cash'))::bigint AS remitted,
            (SELECT coalesce(sum(CASE WHEN direction = 'debit' THEN amount_aoa ELSE -amount_aoa END), 0) FROM cod_entries e
              WHERE e.tenant_id = $1 AND e.company_id = c.company_id AND account = 'courier_fees')::bigint AS fee_deducted,
            (SELECT coalesce(sum(CASE WHEN direction = 'debit' THEN amount_aoa ELSE -amount_aoa END), 0) FROM cod_entries e
              WHERE e.tenant_id = $1 AND e.company_id = c.company_id AND account = 'courier_cash_held')::bigint AS outstanding,
            sum(collected_aoa)::bigint AS collections,
            coalesce(sum(collected_aoa) FILTER (WHERE remittance_id IS NULL), 0)::bigint AS unremitted,
            (SELECT coalesce(sum(total_aoa), 0) FROM cod_remittances r WHERE r.tenant_id = $1 AND r.company_id = c.company_id
                AND status IN ('reported', 'confirmed'))::bigint AS reported
       FROM cod_collections c WHERE tenant_id = $1 GROUP BY company_id ORDER BY company_id`,
    [o.tenantId],
  );
  const balances = await o.client.persist('GET', '/v1/cod/balances');
  expect(balances.status).toBe(200);
  const api = [...(balances.json.data as any[])].sort((a, b) => (a.company_id < b.company_id ? -1 : 1));
  expect(api.length).toBe(rows.length);
  rows.forEach((r, n) => {
    const [collected, remitted, fee, outstanding] = [r.collected, r.remitted, r.fee_deducted, r.outstanding].map(
      Number,
    );
    expect(collected, `${r.company_id}: collected = remitted + fee_deducted + outstanding`).toBe(
      remitted + fee + outstanding,
    );
    expect({
      collections: Number(r.collections),
      unremitted: Number(r.unremitted),
      reported: Number(r.reported),
    }).toEqual({ collections: collected, unremitted: outstanding, reported: remitted });
    expect(api[n]).toMatchObject({
      company_id: r.company_id,
      collected_aoa: collected,
      remitted_aoa: remitted,
      fee_deducted_aoa: fee,
      outstanding_aoa: outstanding,
    });
    o.log(
      `COD ${r.company_id}: collected ${collected} = remitted ${remitted} + fee ${fee} + outstanding ${outstanding}`,
    );
  });
}
