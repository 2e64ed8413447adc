// Merchants with couriers behind the real courier simulator, and quotes made through the real API.
import { randomUUID } from 'node:crypto';
import { createSimulator, newFleetSecret, type CompanyConfig, type Simulator } from '../../simulator/server.js';
import { type CreatedTenant } from '../../src/tenants/service.js';
import { createCourier, linkCouriers, type CourierInput } from '../../src/couriers/service.js';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Stack } from './stack.js';
import { webhookFanoutWorkflowId, webhookMessageId } from '../../shared/webhooks/definitions.js';
import type { webhookFanoutWorkflow } from '../../workflows/webhooks/workflows.js';

export const ORIGIN = {
  address_line: 'Rua Rainha Ginga 29',
  city: 'Luanda',
  province: 'Luanda',
  coordinates: { lat: -8.8147, lng: 13.2302 },
  contact: { name: 'Loja Central', phone: '+244923000000' },
};
export const DESTINATION = {
  address_line: 'Avenida Deolinda Rodrigues 512',
  city: 'Luanda',
  province: 'Luanda',
  coordinates: { lat: -8.8521, lng: 13.2655 },
  contact: { name: 'Ana Silva', phone: '+244912345678' },
};
export const PARCEL = {
  weight_grams: 1200,
  description: 'Sapatos',
  declared_value_aoa: 2_500_000,
  length_cm: 30,
  width_cm: 20,
  height_cm: 12,
};

export interface Merchant {
  tenant: CreatedTenant;
  /** slug -> courier id */
  couriers: Record<string, string>;
  slug: string;
}

/** A simulated company config with a unique slug. */
export function simCompany(overrides: Partial<CompanyConfig> = {}): CompanyConfig {
  return {
    slug: `sim-${randomUUID().slice(0, 8)}`,
    name: 'Simulated Courier',
    fleet_secret: newFleetSecret(),
    pricing: { base_fee_aoa: 150_000, per_km_aoa: 10_000, base_eta_minutes: 45 },
    ...overrides,
  };
}

export async function startSimulator(): Promise<Simulator> {
  return createSimulator({ port: 0, host: '127.0.0.1', companies: [], eventRetries: 5 });
}

/** A tenant whose couriers are the given simulated companies (http adapter) plus any extra rate-card ones. */
export async function merchantWith(
  stack: Stack,
  sim: Simulator,
  companies: CompanyConfig[],
  extra: CourierInput[] = [],
  origins?: string[],
): Promise<Merchant> {
  const tenant = await stack.tenant(origins);
  const couriers: Record<string, string> = {};
  for (const company of companies) {
    sim.control.upsert(company);
    const created = await createCourier(stack.pool, {
      name: company.name ?? company.slug,
      slug: company.slug,
      adapter: 'http',
      endpoint: sim.endpoint(company.slug),
      fleet_secret: company.fleet_secret,
      require_delivery_pin: company.require_delivery_pin ?? false,
      timeout_ms: 1000,
    });
    couriers[company.slug] = created.courier_id;
    await linkCouriers(stack.pool, tenant.tenant_id, company.slug);
  }
  for (const courier of extra) {
    const created = await createCourier(stack.pool, courier);
    couriers[courier.slug] = created.courier_id;
    await linkCouriers(stack.pool, tenant.tenant_id, courier.slug);
  }
  return { tenant, couriers, slug: companies[0]?.slug ?? extra[0]?.slug };
}

export const quoteBody = () => ({ origin: ORIGIN, destination: DESTINATION, parcel: PARCEL });

/** POST /v1/quotes and return the entry of `slug` (or the first). */
export async function quote(stack: Stack, m: Merchant, slug = m.slug) {
  const res = await stack.request('POST', '/v1/quotes', { key: m.tenant.secret_key, body: quoteBody() });
  if (res.status !== 200) throw new Error(`quote failed: ${res.status} ${JSON.stringify(res.body)}`);
  const entry = res.body.data.find((q: { company_slug: string }) => q.company_slug === slug);
  if (!entry) throw new Error(`no quote from ${slug}: ${JSON.stringify(res.body)}`);
  return entry as { quote_id: string; company_id: string; fee_aoa: number; valid_until: string };
}

/** Quote then create a delivery; returns the 201 body. */
export async function createDeliveryFor(stack: Stack, m: Merchant, extra: Record<string, unknown> = {}, slug = m.slug) {
  const q = await quote(stack, m, slug);
  const res = await stack.request('POST', '/v1/deliveries', {
    key: m.tenant.secret_key,
    body: { quote_id: q.quote_id, ...quoteBody(), ...extra },
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls GET /v1/deliveries/{id} until `predicate` holds. */
export async function waitFor(
  stack: Stack,
  key: string,
  id: string,
  predicate: (d: any) => boolean,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = (await stack.request('GET', `/v1/deliveries/${id}`, { key })).body;
    if (predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `timed out waiting; last state: ${JSON.stringify({ status: last?.status, events: last?.events?.map((e: any) => e.event_type) })}`,
  );
}

export const waitForStatus = (stack: Stack, key: string, id: string, status: string, timeoutMs?: number) =>
  waitFor(stack, key, id, (d) => d.status === status, timeoutMs);

/**
 * How a delivery event's webhook message ended, per endpoint, once its sending is over: the worker's outbox made the
 * first attempts (the attempt log says: succeeded, final after a 410 or 5 days of failures, exhausted), then the retry workflow
 * (when an endpoint failed) finished with its outcomes. `messageId` null: the event has no message (no endpoint takes
 * it). Call it once the event is recorded (a message is stored with its event).
 */
export async function webhookOutcome(
  stack: Stack,
  eventId: string,
): Promise<{ messageId: string | null; outcomes: Record<string, string> }> {
  const messageId = webhookMessageId(eventId);
  if (!(await stack.pool.query('SELECT 1 FROM webhook_messages WHERE id = $1', [messageId])).rowCount)
    return { messageId: null, outcomes: {} };
  const deadline = Date.now() + 20_000;
  while (
    !(await stack.pool.query('SELECT 1 FROM webhook_messages WHERE id = $1 AND dispatched_at IS NOT NULL', [messageId]))
      .rowCount
  ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${messageId} to be dispatched`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const outcomes: Record<string, string> = {};
  const { rows } = await stack.pool.query<{ endpoint_id: string; status: string }>(
    `SELECT DISTINCT ON (endpoint_id) endpoint_id, status FROM webhook_attempts WHERE message_id = $1 AND trigger = 'event'
      ORDER BY endpoint_id, attempted_at DESC, seq DESC`,
    [messageId],
  );
  for (const r of rows) outcomes[r.endpoint_id] = r.status === 'failed' ? 'final' : r.status;
  const retries = stack.temporal.workflow.getHandle<typeof webhookFanoutWorkflow>(webhookFanoutWorkflowId(eventId));
  try {
    Object.assign(outcomes, (await retries.result()).outcomes);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err; // every endpoint took it at the first attempt
  }
  return { messageId, outcomes };
}
