// The kinds of lifecycle bench/lifecycle.ts measures (BENCH_KINDS, default all of them), each with its own merchant
// (so a quote asks one company, as in the plain benchmark), its own company in the simulator and its own webhook
// endpoint on the shared receiver:
//   - normal: booked, moved every BENCH_STEP_MS to `delivered` (pickup_ready, in_transit, out_for_delivery, delivered);
//   - attempt: the same with one failed attempt (`attempt_failed`, then `out_for_delivery` again, then delivered);
//   - return: both attempts fail (the default max_delivery_attempts, 2): `failed`, and the return to sender the service
//     books by itself with the same company runs its own lifecycle to `delivered`; the lifecycle ends with
//     `delivery.returned` on the original, and its cost is the original's and the return's together.
import { randomUUID } from 'node:crypto';
import type { Pool } from '../src/platform/db.js';
import { createCourier, linkCouriers } from '../src/couriers/service.js';
import { createTenant } from '../src/tenants/service.js';
import type { AutoProgress } from '../simulator/types.js';
import { newFleetSecret, type Simulator } from '../simulator/server.js';

export type KindName = 'normal' | 'attempt' | 'return';
export const KIND_NAMES: KindName[] = ['normal', 'attempt', 'return'];

interface KindSpec {
  /** The row label in the report. */
  label: string;
  /** What the simulator does with each job. */
  autoProgress: (stepMs: number) => AutoProgress;
  /** The simulator's own delays to the end: bookings plus moves, in steps. */
  steps: number;
  /** SQL on `d` (a delivery) true once its lifecycle is over. */
  done: string;
  /** The event that ends the lifecycle. */
  endEvent: string;
}

export const KINDS: Record<KindName, KindSpec> = {
  normal: {
    label: 'delivery',
    autoProgress: (delay_ms) => ({ delay_ms }),
    steps: 5,
    done: `d.status = 'delivered'`,
    endEvent: 'delivery.delivered',
  },
  attempt: {
    label: 'one failed attempt',
    autoProgress: (delay_ms) => ({ delay_ms, failed_attempts: { first: 1, max: 2, returns: false } }),
    steps: 7,
    done: `d.status = 'delivered'`,
    endEvent: 'delivery.delivered',
  },
  return: {
    label: 'return',
    autoProgress: (delay_ms) => ({ delay_ms, failed_attempts: { first: 2, max: 2, returns: false } }),
    steps: 12,
    done: `EXISTS (SELECT 1 FROM delivery_events r WHERE r.delivery_id = d.id AND r.event_type = 'delivery.returned')`,
    endEvent: 'delivery.returned',
  },
};

/** BENCH_KINDS (comma-separated), in the order given; unknown names refused. */
export function kindsFromEnv(value = process.env.BENCH_KINDS ?? KIND_NAMES.join(',')): KindName[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names)
    if (!KIND_NAMES.includes(name as KindName))
      throw new Error(`BENCH_KINDS: unknown kind ${name} (known: ${KIND_NAMES.join(', ')})`);
  return names as KindName[];
}

export interface KindSetup {
  name: KindName;
  spec: KindSpec;
  tenantId: string;
  secretKey: string;
  /** The kind's company in the simulator. */
  slug: string;
}

/** A merchant and a company in the simulator, linked, for `name`. */
export async function setUpKind(pool: Pool, sim: Simulator, name: KindName, stepMs: number): Promise<KindSetup> {
  const tenant = await createTenant(pool, `lifecycle merchant (${name})`);
  const slug = `life-${name}-${randomUUID().slice(0, 6)}`;
  const secret = newFleetSecret();
  sim.control.upsert({
    slug,
    fleet_secret: secret,
    pricing: { base_fee_aoa: 100_000 },
    booking_status: 'accepted',
    auto_progress: KINDS[name].autoProgress(stepMs),
  });
  await createCourier(pool, { name: slug, slug, adapter: 'http', endpoint: sim.endpoint(slug), fleet_secret: secret });
  await linkCouriers(pool, tenant.tenant_id, slug);
  return { name, spec: KINDS[name], tenantId: tenant.tenant_id, secretKey: tenant.secret_key, slug };
}

/** How many of `ids` (created more than `olderThanMs` ago) have not finished their lifecycle. */
export async function openOfKind(pool: Pool, kind: KindSetup, ids: string[], olderThanMs: number): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM deliveries d WHERE d.id = ANY($1::uuid[]) AND NOT (${kind.spec.done})
        AND d.inserted_at < now() - make_interval(secs => $2::double precision / 1000)`,
    [ids, olderThanMs],
  );
  return rows[0].n;
}

/** Lifecycle times (created -> the kind's end event) of the finished ones among `ids`, ms. */
export async function durationsOfKind(pool: Pool, kind: KindSetup, ids: string[]): Promise<number[]> {
  const { rows } = await pool.query<{ ms: number }>(
    `SELECT extract(epoch FROM min(e.occurred_at) - d.inserted_at) * 1000 AS ms
       FROM deliveries d JOIN delivery_events e ON e.delivery_id = d.id AND e.event_type = $2
      WHERE d.id = ANY($1::uuid[]) GROUP BY d.id, d.inserted_at`,
    [ids, kind.spec.endEvent],
  );
  return rows.map((r) => Number(r.ms));
}

/** Up to `limit` of the kind's finished lifecycles, oldest first: each original with its return, if any. */
export async function sampleOfKind(
  pool: Pool,
  kind: KindSetup,
  limit: number,
): Promise<{ id: string; deliveryIds: string[] }[]> {
  const { rows } = await pool.query<{ id: string; return_delivery_id: string | null }>(
    `SELECT d.id, d.return_delivery_id FROM deliveries d
      WHERE d.tenant_id = $1 AND d.return_of IS NULL AND ${kind.spec.done} ORDER BY d.inserted_at LIMIT $2`,
    [kind.tenantId, limit],
  );
  return rows.map((r) => ({ id: r.id, deliveryIds: r.return_delivery_id ? [r.id, r.return_delivery_id] : [r.id] }));
}

/** Recorded events of the sampled lifecycles (returns included), in all and from the courier, per lifecycle. */
export async function eventsPerLifecycle(
  pool: Pool,
  sample: { deliveryIds: string[] }[],
): Promise<{ events: number; signals: number }> {
  const ids = sample.flatMap((s) => s.deliveryIds);
  const { rows } = await pool.query<{ events: number; signals: number }>(
    `SELECT count(*)::int AS events, count(*) FILTER (WHERE source = 'fleet_webhook')::int AS signals
       FROM delivery_events WHERE delivery_id = ANY($1::uuid[])`,
    [ids],
  );
  const n = Math.max(1, sample.length);
  return { events: rows[0].events / n, signals: rows[0].signals / n };
}
