// The simulated courier companies of the dev command: the simulator runs them and the demo seed registers
// them (adapter http, endpoint {simulator}/{slug}, the same fleet secret). Demo secrets only: never use in production.
import type { CourierInput } from '../src/couriers/service.js';
import type { CompanyConfig } from './server.js';

const demoSecret = (name: string) =>
  'whsec_' + Buffer.from(`demo-simulator-${name}`.padEnd(32, '.')).toString('base64');

interface DemoCompany {
  simulator: CompanyConfig;
  courier: Omit<CourierInput, 'endpoint' | 'fleet_secret' | 'slug' | 'adapter'>;
}

const DEMO: DemoCompany[] = [
  {
    simulator: {
      slug: 'rapido-entregas',
      fleet_secret: demoSecret('rapido-entregas'),
      pricing: {
        base_fee_aoa: 120_000,
        per_km_aoa: 8_000,
        per_kg_aoa: 4_000,
        per_kg_threshold_grams: 3_000,
        base_eta_minutes: 45,
        eta_minutes_per_km: 2,
        zone_fees_aoa: { Luanda: 60_000 },
      },
      service_zones: ['Luanda', 'Bengo'],
      max_weight_grams: 30_000,
      latency_ms: 60,
      booking_status: 'accepted',
      valid_for_seconds: 600,
      auto_progress: { delay_ms: 15_000 },
    },
    courier: {
      name: 'Rápido Entregas (simulated)',
      base_fee_aoa: 120_000,
      base_eta_minutes: 45,
      active_drivers: 25,
      service_zones: ['Luanda', 'Bengo'],
      max_weight_grams: 30_000,
    },
  },
  {
    simulator: {
      slug: 'moto-kwanza',
      fleet_secret: demoSecret('moto-kwanza'),
      pricing: {
        base_fee_aoa: 90_000,
        per_km_aoa: 6_000,
        base_eta_minutes: 30,
        eta_minutes_per_km: 3,
        zone_fees_aoa: { Luanda: 40_000 },
      },
      service_zones: ['Luanda'],
      max_weight_grams: 8_000,
      parcel_types: ['document', 'small_box'],
      require_delivery_pin: true,
      latency_ms: 120,
      booking_status: 'pending',
      auto_progress: { delay_ms: 20_000 },
    },
    courier: {
      name: 'Moto Kwanza (simulated)',
      base_fee_aoa: 90_000,
      base_eta_minutes: 30,
      active_drivers: 60,
      service_zones: ['Luanda'],
      max_weight_grams: 8_000,
      parcel_types: ['document', 'small_box'],
      require_delivery_pin: true,
    },
  },
  {
    simulator: {
      slug: 'cargas-instaveis',
      fleet_secret: demoSecret('cargas-instaveis'),
      pricing: {
        base_fee_aoa: 200_000,
        per_km_aoa: 5_000,
        per_kg_aoa: 2_000,
        per_kg_threshold_grams: 10_000,
        base_eta_minutes: 180,
        eta_minutes_per_km: 1,
        zone_fees_aoa: { 'Luanda>Benguela': 500_000, 'Benguela>Luanda': 500_000 },
      },
      latency_ms: 400,
      failure_rate: 0.3,
      booking_status: 'accepted',
    },
    courier: {
      name: 'Cargas Instáveis (simulated, fails 30%)',
      base_fee_aoa: 200_000,
      base_eta_minutes: 180,
      active_drivers: 8,
      service_zones: [],
    },
  },
];

/** The simulator's configuration for the demo companies. */
export const DEMO_SIMULATOR_COMPANIES: CompanyConfig[] = DEMO.map((d) => d.simulator);

/** The same companies as courier_companies rows pointing at a simulator at `simulatorUrl`. */
export function demoSimulatorCouriers(simulatorUrl: string): CourierInput[] {
  const base = simulatorUrl.replace(/\/+$/, '');
  return DEMO.map((d) => ({
    ...d.courier,
    slug: d.simulator.slug,
    adapter: 'http',
    endpoint: `${base}/${d.simulator.slug}`,
    fleet_secret: d.simulator.fleet_secret,
    timeout_ms: 2000,
  }));
}
