// The last mile as it really happens, in the crash tests (test/chaos, test/cluster; issue #29 item 7): besides the
// plain lifecycles, some deliveries fail an attempt and are delivered at the next, some exhaust their attempts and
// return to the sender (the return delivered, `delivery.returned` on the original), and some stall (their courier
// refuses the booking) and are recovered by the merchant with POST /v1/deliveries/{id}/recover, half by `redispatch`
// to another company, half by `resume` once the courier accepts again. Each kind has a company of its own in the
// courier simulator; the plan says which delivery is of which kind.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { expect } from 'vitest';
import { createCourier, linkCouriers } from '../../src/couriers/service.js';
import { newFleetSecret, type Simulator } from '../../simulator/server.js';
import type { CompanyConfig } from '../../simulator/types.js';
import { sleep, type ChaosClient, type QuoteEntry } from './chaos.js';

export type Kind = 'normal' | 'attempt' | 'return' | 'redispatch' | 'resume';
const RECOVERY_EVENT = { redispatch: 'delivery.redispatched', resume: 'delivery.resumed' } as const;

/**
 * The kind of the `i`-th of `count` deliveries: one in ten fails an attempt, one in ten returns, one in 25 of the first
 * half stalls (so that every stalled one exists well before the end, while the kills go on), alternately redispatched
 * and resumed.
 */
export function kindOf(i: number, count: number): Kind {
  if (i >= count) return 'normal';
  if (i % 10 === 3) return 'attempt';
  if (i % 10 === 7) return 'return';
  if (i % 25 === 11 && i < count / 2) return (i / 25) % 2 < 1 ? 'redispatch' : 'resume';
  return 'normal';
}

const companies: Record<'attempt' | 'return' | 'stall', Partial<CompanyConfig>> = {
  // Fails the first attempt, delivers at the second (the tenant's max_delivery_attempts is 2).
  attempt: { auto_progress: { delay_ms: 400, failed_attempts: { first: 1, max: 2, returns: false } } },
  // Fails both attempts (the reasons in turn): failed, delivery_attempts_exhausted; its return comes back at once.
  return: {
    auto_progress: {
      delay_ms: 400,
      failed_attempts: { first: 2, max: 2, reasons: ['recipient_unavailable', 'address_not_found'], returns: false },
    },
  },
  // Refuses every booking until the test lets it accept (for the resumed ones).
  stall: { reject_bookings: 409, auto_progress: { delay_ms: 400 } },
};

export interface LastMile {
  /** The ChaosClient's route: each kind's company; the normal ones over the other companies in turn. */
  route(i: number, quotes: QuoteEntry[]): QuoteEntry;
  /** createMany's onCreated: remembers each delivery's id. */
  created(i: number, id: string): void;
  /**
   * Once every stalled kind is created: waits for them to stall, lets the stall company accept, and recovers each
   * through the API (redispatch to a plain company, or resume), retrying through outages.
   */
  recover(client: ChaosClient, log: (line: string) => void): Promise<void>;
  /** Waits until every return is delivered and recorded on its original (`delivery.returned`). */
  settled(log: (line: string) => void): Promise<void>;
  /** Each kind ended as it should; logs how many of each. */
  expectOutcomes(log: (line: string) => void): Promise<void>;
}

/** Adds the three companies to the simulator and the tenant; `count`: the deliveries the plan covers. */
export async function startLastMile(sim: Simulator, pool: pg.Pool, tenantId: string, count: number): Promise<LastMile> {
  const ids: Record<string, string> = {};
  const slugs: Record<string, string> = {};
  for (const [kind, config] of Object.entries(companies)) {
    const slug = `lastmile-${kind}-${randomUUID().slice(0, 6)}`;
    const secret = newFleetSecret();
    sim.control.upsert({ slug, fleet_secret: secret, pricing: { base_fee_aoa: 300_000 }, ...config });
    const courier = await createCourier(pool, {
      name: slug,
      slug,
      adapter: 'http',
      endpoint: sim.endpoint(slug),
      fleet_secret: secret,
      timeout_ms: 2000,
    });
    await linkCouriers(pool, tenantId, slug);
    ids[kind] = courier.courier_id;
    slugs[kind] = slug;
  }
  const extra = new Set(Object.values(ids));
  let plain: string[] = [];
  const byIndex = new Map<number, string>();
  const stalledCount = Array.from({ length: count }, (_, i) => kindOf(i, count)).filter(
    (k) => k === 'redispatch' || k === 'resume',
  ).length;
  let allStallCreated: () => void = () => {};
  const stallCreated = new Promise<void>((resolve) => (allStallCreated = resolve));
  if (stalledCount === 0) allStallCreated();
  const ofKind = (kind: Kind) => [...byIndex].filter(([i]) => kindOf(i, count) === kind).map(([, id]) => id);
  const stallIds = () => [...ofKind('redispatch'), ...ofKind('resume')];

  return {
    route(i, quotes) {
      plain = quotes.filter((q) => !extra.has(q.company_id)).map((q) => q.company_id);
      const kind = kindOf(i, count);
      const company =
        kind === 'normal' ? plain[i % plain.length] : ids[kind === 'attempt' || kind === 'return' ? kind : 'stall'];
      return quotes.find((q) => q.company_id === company) ?? quotes[0];
    },
    created(i, id) {
      byIndex.set(i, id);
      if (stallIds().length === stalledCount) allStallCreated();
    },
    async recover(client, log) {
      await stallCreated;
      await waitFor(pool, log, `${stalledCount} deliveries stalled`, () =>
        countWhere(pool, stallIds(), `status = 'stalled'`).then((n) => n === stalledCount),
      );
      log(`${stalledCount} deliveries stalled; the stalling company accepts again; recovering them through the API`);
      sim.control.configure(slugs.stall, { reject_bookings: false });
      const jobs = [
        ...ofKind('redispatch').map(
          (id) => () => recoverOne(client, id, { action: 'redispatch', company_id: plain[0] }),
        ),
        ...ofKind('resume').map((id) => () => recoverOne(client, id, { action: 'resume' })),
      ];
      const started = Date.now();
      const tries = (await Promise.all(jobs.map((job) => job()))).flat();
      const answers: Record<string, number> = {};
      for (const answer of tries) answers[answer] = (answers[answer] ?? 0) + 1;
      log(
        `${stalledCount} deliveries recovered in ${Math.round((Date.now() - started) / 1000)} s; POST /recover answers: ${JSON.stringify(answers)}`,
      );
    },
    async settled(log) {
      const originals = ofKind('return');
      await waitFor(pool, log, `${originals.length} returns delivered and recorded`, () =>
        countWhere(
          pool,
          originals,
          `EXISTS (SELECT 1 FROM delivery_events e WHERE e.delivery_id = deliveries.id AND e.event_type = 'delivery.returned')`,
        ).then((n) => n === originals.length),
      );
    },
    async expectOutcomes(log) {
      const counts: Record<string, number> = {};
      for (const kind of ['attempt', 'return', 'redispatch', 'resume'] as const) {
        const list = ofKind(kind);
        counts[kind] = list.length;
        const planned = Array.from({ length: count }, (_, i) => kindOf(i, count)).filter((k) => k === kind);
        expect(list.length, `deliveries of kind ${kind}`).toBe(planned.length);
        const rows = await outcomes(pool, list);
        for (const row of rows) expectOutcome(kind, row, plain[0]);
      }
      log(`last mile: ${JSON.stringify(counts)} (and their ${counts.return} returns) ended as they should`);
    },
  };
}

/**
 * Retries POST /recover until the delivery shows the action's event with source api (an earlier try may have taken);
 * returns the answers its tries got (a status, or `none`).
 */
async function recoverOne(
  client: ChaosClient,
  id: string,
  body: { action: 'redispatch' | 'resume'; company_id?: string },
) {
  const event = RECOVERY_EVENT[body.action];
  const answers: string[] = [];
  for (let n = 0; n < 600; n++) {
    const read = await client.once('GET', `/v1/deliveries/${id}`);
    if (read?.status === 200) {
      if (read.json.events.some((e: any) => e.event_type === event && e.source === 'api')) return answers;
      if (read.json.status === 'stalled') {
        const res = await client.once('POST', `/v1/deliveries/${id}/recover`, body, {
          'idempotency-key': `recover-${id}`,
        });
        answers.push(String(res?.status ?? 'none'));
        if (res?.status === 200) return answers;
        // 409: not stalled any more (an earlier try took effect) or a try still on its way; 5xx or none: an outage.
        if (res && res.status < 500 && res.status !== 409)
          throw new Error(`recover ${id} answered ${res.status}: ${JSON.stringify(res.json)}`);
      }
    }
    await sleep(1000);
  }
  throw new Error(`recover ${id} (${body.action}) never took effect`);
}

async function countWhere(pool: pg.Pool, ids: string[], condition: string): Promise<number> {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n FROM deliveries WHERE id = ANY($1::uuid[]) AND ${condition}`,
    [ids],
  );
  return rows[0].n;
}

async function waitFor(pool: pg.Pool, log: (line: string) => void, what: string, done: () => Promise<boolean>) {
  const deadline = Date.now() + 10 * 60_000;
  for (let n = 0; ; n++) {
    if (await done().catch(() => false)) return; // Postgres may be restarting
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    if (n % 5 === 4) log(`waiting for ${what}`);
    await sleep(3000);
  }
}

interface OutcomeRow {
  id: string;
  status: string;
  company_id: string;
  return_delivery_id: string | null;
  return_status: string | null;
  return_of: string | null;
  events: { type: string; source: string; payload: any }[];
}

async function outcomes(pool: pg.Pool, ids: string[]): Promise<OutcomeRow[]> {
  const { rows } = await pool.query(
    `SELECT d.id, d.status, d.company_id, d.return_delivery_id, r.status AS return_status, r.return_of,
            (SELECT json_agg(json_build_object('type', e.event_type, 'source', e.source, 'payload', e.payload)
                      ORDER BY e.occurred_at, e.seq)
               FROM delivery_events e WHERE e.delivery_id = d.id) AS events
       FROM deliveries d LEFT JOIN deliveries r ON r.id = d.return_delivery_id
      WHERE d.id = ANY($1::uuid[])`,
    [ids],
  );
  return rows;
}

function expectOutcome(kind: Kind, row: OutcomeRow, plainCompany: string) {
  const types = row.events.map((e) => e.type);
  const of = (type: string) => row.events.filter((e) => e.type === type);
  const where = `${kind} ${row.id}: ${row.status} ${types.join(' ')}`;
  switch (kind) {
    case 'attempt':
      expect(row.status, where).toBe('delivered');
      expect(
        of('delivery.attempt_failed').map((e) => e.payload.attempt),
        where,
      ).toEqual([1]);
      expect(row.return_delivery_id, where).toBeNull();
      break;
    case 'return':
      expect(row.status, where).toBe('failed');
      expect(of('delivery.failed')[0]?.payload.reason, where).toBe('delivery_attempts_exhausted');
      expect({ return_of: row.return_of, return_status: row.return_status }, where).toEqual({
        return_of: row.id,
        return_status: 'delivered',
      });
      expect(of('delivery.return_started').length, where).toBe(1);
      expect(of('delivery.returned').length, where).toBe(1);
      break;
    case 'redispatch':
    case 'resume':
      expect(row.status, where).toBe('delivered');
      expect(of('delivery.stalled')[0]?.payload.reason, where).toBe('courier_rejected');
      expect(
        of(RECOVERY_EVENT[kind]).map((e) => e.source),
        where,
      ).toEqual(['api']);
      if (kind === 'redispatch') expect(row.company_id, where).toBe(plainCompany);
      break;
  }
}
