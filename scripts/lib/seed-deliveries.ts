// Loads many deliveries quickly for the list benchmark: tenants, one rate-card courier, and
// `total` deliveries spread evenly over the tenants and over the past year, with generate_series in
// batches (a progress bar on stderr). Reuses what an earlier run loaded when the count matches.
import type { Pool } from '../../src/platform/db.js';
import { createTenant } from '../../src/tenants/service.js';
import { createCourier, linkCouriers } from '../../src/couriers/service.js';
import { createKey } from '../../src/keys/service.js';

const STATUSES = [
  'pending',
  'assigned',
  'pickup_ready',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'delivered',
  'delivered',
  'cancelled',
  'failed',
];
const CITIES = ['Luanda', 'Benguela', 'Huambo', 'Lubango', 'Lobito', 'Cabinda', 'Malanje', 'Namibe', 'Soyo', 'Uíge'];
const STREETS = [
  'Rua Rainha Ginga',
  'Avenida Deolinda Rodrigues',
  'Rua Amílcar Cabral',
  'Avenida 4 de Fevereiro',
  'Rua Direita do Zango',
  'Estrada de Catete',
  'Rua Major Kanhangulo',
  'Avenida Ho Chi Minh',
];

export interface SeededTenant {
  tenant_id: string;
  secret_key: string;
}

function progress(done: number, total: number, started: number) {
  const width = 30;
  const filled = Math.round((done / total) * width);
  const rate = done / Math.max((Date.now() - started) / 1000, 0.001);
  process.stderr.write(
    `\r    [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done.toLocaleString('en')} / ${total.toLocaleString('en')}  ${Math.round(rate).toLocaleString('en')} rows/s   `,
  );
  if (done === total) process.stderr.write('\n');
}

/** The rate-card courier and `tenantCount` bench tenants linked to it (kept between runs), each with a fresh key. */
async function benchTenants(pool: Pool, tenantCount: number) {
  const slug = 'bench-rate-card';
  let courierId = (await pool.query<{ id: string }>('SELECT id FROM courier_companies WHERE slug = $1', [slug])).rows[0]
    ?.id;
  if (!courierId)
    courierId = (
      await createCourier(pool, { name: 'Bench Rate Card', slug, adapter: 'rate_card', base_fee_aoa: 100_000 })
    ).courier_id;

  // Bench tenants are kept between runs (named bench-tenant-NNNN); each run gets fresh secret keys.
  const ids = (
    await pool.query<{ id: string }>(`SELECT id FROM tenants WHERE name LIKE 'bench-tenant-%' ORDER BY name`)
  ).rows.map((r) => r.id);
  for (let i = ids.length; i < tenantCount; i++) {
    const t = await createTenant(pool, `bench-tenant-${String(i).padStart(4, '0')}`);
    await linkCouriers(pool, t.tenant_id, slug);
    ids.push(t.tenant_id);
  }
  const tenants = ids.slice(0, tenantCount);
  const keys = await Promise.all(
    tenants.map(async (id) => ({ tenant_id: id, secret_key: (await createKey(pool, id, 'secret')).key })),
  );
  return { courierId, tenants, keys };
}

interface Load {
  tenants: string[];
  courierId: string;
  total: number;
  /** The run's start (ms): salts the quote ids and references of this load. */
  started: number;
}

/** Inserts deliveries `offset` .. `offset + size - 1` of the load, each with its own used quote. */
async function insertBatch(pool: Pool, load: Load, offset: number, size: number) {
  const { tenants, courierId, total, started } = load;
  // Each delivery references its own used quote (deliveries.quote_id is unique); ids derived from g pair them.
  // References end in g in hex: unique (10 random hex digits collide within a million rows about one run in three).
  await pool.query(
    `INSERT INTO quotes (id, tenant_id, company_id, fee_aoa, eta_minutes, valid_until, origin, destination, parcel, payload_hash, used_at)
     SELECT md5('quote' || g || $4)::uuid, ($1::uuid[])[1 + g % $2], $3, 100000, 60, now(), '{}', '{}', '{}', '', now()
       FROM generate_series($5::bigint, $6::bigint) AS g`,
    [tenants, tenants.length, courierId, String(started), offset, offset + size - 1],
  );
  await pool.query(
    `INSERT INTO deliveries (id, tenant_id, reference, status, company_id, quote_id, origin, destination, parcel,
       payment_method, quoted_fee_aoa, metadata, workflow_started_at, inserted_at, updated_at)
     SELECT gen_random_uuid(), ($1::uuid[])[1 + g % $2], 'DLV-' || upper(substr(md5(g::text || $7), 1, 4) || lpad(to_hex(g), 6, '0')),
            ($3::text[])[1 + abs(hashint8(g)) % array_length($3, 1)], $4, md5($5 || g || $7)::uuid,
            jsonb_build_object('address_line', ($6::text[])[1 + abs(hashint8(g + 1)) % array_length($6, 1)] || ' ' || abs(hashint8(g + 2)) % 400,
                               'city', ($8::text[])[1 + abs(hashint8(g + 3)) % array_length($8, 1)], 'province', 'Luanda'),
            jsonb_build_object('address_line', ($6::text[])[1 + abs(hashint8(g + 4)) % array_length($6, 1)] || ' ' || abs(hashint8(g + 5)) % 997,
                               'city', ($8::text[])[1 + abs(hashint8(g + 6)) % array_length($8, 1)], 'province', 'Luanda'),
            jsonb_build_object('weight_grams', 100 + g % 20000),
            'prepaid', 100000 + (g % 500) * 100, '{}'::jsonb, now(),
            -- spread evenly over the past 365 days, newest first by g
            date_trunc('milliseconds', now() - (g::double precision / $11) * interval '365 days'), now()
       FROM generate_series($9::bigint, $10::bigint) AS g`,
    [
      tenants,
      tenants.length,
      STATUSES,
      courierId,
      'quote',
      STREETS,
      String(started),
      CITIES,
      offset,
      offset + size - 1,
      total,
    ],
  );
}

/** Seeds `total` deliveries over `tenantCount` tenants; returns the tenants with fresh secret keys. */
export async function seedDeliveries(
  pool: Pool,
  total: number,
  tenantCount: number,
  batch = 50_000,
): Promise<SeededTenant[]> {
  const { courierId, tenants, keys } = await benchTenants(pool, tenantCount);
  const { rows: counted } = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = ANY($1::uuid[])',
    [tenants],
  );
  const { rows: all } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM deliveries');
  if (counted[0].n === total && all[0].n === total) {
    console.log(
      `    ${total.toLocaleString('en')} deliveries over ${tenantCount} tenants already loaded: reusing them.`,
    );
    return keys;
  }
  if (all[0].n > 0) {
    console.log('    Removing an earlier, different load...');
    await pool.query('TRUNCATE deliveries CASCADE');
  }

  const started = Date.now();
  const load: Load = { tenants, courierId, total, started };
  for (let offset = 0; offset < total; offset += batch) {
    const size = Math.min(batch, total - offset);
    await insertBatch(pool, load, offset, size);
    progress(offset + size, total, started);
  }
  // VACUUM sets the visibility map, so list pages come from index-only scans as they would in a settled table.
  await pool.query('VACUUM ANALYZE deliveries');
  console.log(
    `    Loaded ${total.toLocaleString('en')} deliveries in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
  );
  return keys;
}
