// The demo tenant and courier companies the dev command sets up. Keys are stored only as hashes,
// so the dev command keeps the demo keys (the live pair and the test pair) in .data/demo-tenant.json to print them
// again on the next start.
import fs from 'node:fs';
import path from 'node:path';
import type { Pool } from '../../src/platform/db.js';
import { createTenant, type CreatedTenant } from '../../src/tenants/service.js';
import { createCourier, linkCouriers, type CourierInput } from '../../src/couriers/service.js';
import { createKey } from '../../src/keys/service.js';
import { demoSimulatorCouriers } from '../../simulator/demo.js';

export const DEMO_ORIGINS = ['http://localhost:3000', 'http://localhost:5173', 'http://127.0.0.1:3000'];

/** Rate-card couriers: priced by the service itself, booked "by fleet". */
export const DEMO_RATE_CARD_COURIERS: CourierInput[] = [
  {
    name: 'Kandengue Express',
    slug: 'kandengue-express',
    adapter: 'rate_card',
    base_fee_aoa: 150_000,
    base_eta_minutes: 60,
    active_drivers: 42,
    service_zones: ['Luanda', 'Bengo'],
    max_weight_grams: 20_000,
    operating_hours: { mon_fri: '08:00-18:00', sat: '09:00-13:00' },
    rate_card: {
      per_km_aoa: 10_000,
      per_kg_aoa: 5_000,
      per_kg_threshold_grams: 2_000,
      eta_minutes_per_km: 3,
      zone_fees_aoa: { Luanda: 50_000 },
    },
  },
  {
    name: 'Benguela Cargas',
    slug: 'benguela-cargas',
    adapter: 'rate_card',
    base_fee_aoa: 250_000,
    base_eta_minutes: 240,
    active_drivers: 12,
    service_zones: ['Luanda', 'Benguela', 'Huambo'],
    max_weight_grams: 100_000,
    bank_transfer_enabled: true,
    bank_name: 'Banco BAI',
    bank_account_holder: 'Benguela Cargas Lda',
    bank_iban: 'AO06004000000123456789012',
    rate_card: {
      per_km_aoa: 6_000,
      per_kg_aoa: 3_000,
      per_kg_threshold_grams: 5_000,
      eta_minutes_per_km: 1,
      zone_fees_aoa: { 'Luanda>Benguela': 600_000, 'Benguela>Luanda': 600_000 },
    },
  },
];

/** The courier simulator's demo companies (simulator/demo.ts) as http couriers: endpoint {simulatorUrl}/{slug}, same fleet secret. */
export const simulatorCouriers = (simulatorUrl: string): CourierInput[] => demoSimulatorCouriers(simulatorUrl);

export async function seedDemo(
  pool: Pool,
  dataDir: string,
  extraCouriers: CourierInput[] = [],
): Promise<CreatedTenant> {
  const file = path.join(dataDir, 'demo-tenant.json');
  for (const courier of [...DEMO_RATE_CARD_COURIERS, ...extraCouriers]) {
    const { rowCount } = await pool.query('SELECT 1 FROM courier_companies WHERE slug = $1', [courier.slug]);
    if (!rowCount) await createCourier(pool, courier);
    else
      await pool.query('UPDATE courier_companies SET endpoint = $2 WHERE slug = $1', [
        courier.slug,
        courier.endpoint ?? null,
      ]);
  }
  let demo: CreatedTenant | null = null;
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as CreatedTenant;
    const { rowCount } = await pool.query('SELECT 1 FROM tenants WHERE id = $1', [saved.tenant_id]);
    if (rowCount) demo = saved;
    if (demo && !demo.test_secret_key) {
      // Saved before test mode: give the demo tenant its test pair too.
      const secret = await createKey(pool, demo.tenant_id, 'secret', [], 'test');
      const publishable = await createKey(pool, demo.tenant_id, 'publishable', DEMO_ORIGINS, 'test');
      demo = {
        ...demo,
        test_secret_key: secret.key,
        test_secret_key_id: secret.id,
        test_publishable_key: publishable.key,
        test_publishable_key_id: publishable.id,
      };
      fs.writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
    }
  }
  if (!demo) {
    demo = await createTenant(pool, 'Demo merchant', DEMO_ORIGINS);
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  }
  await linkCouriers(pool, demo.tenant_id, 'all');
  // Recipients' SMS on in live mode too (its default is off): the dev stack sends them to the SMSC simulator
  // (docs/recipients.md). Once only: a choice made later (PUT /v1/settings/notifications) stays.
  await pool.query(
    `INSERT INTO notification_settings (tenant_id, livemode, sms_enabled) VALUES ($1, true, true)
     ON CONFLICT (tenant_id, livemode) DO NOTHING`,
    [demo.tenant_id],
  );
  return demo;
}
