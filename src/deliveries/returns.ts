// Returns to sender (design.md "Attempts, returns and proof of delivery"): a delivery of its own, with the same
// company, origin and destination swapped, prepaid, no cash, reference `<reference>-R`, `return_of` the original's id
// (and the original's `return_delivery_id` the return's). Priced by the company's quote for the swapped route times
// its rate card's `return_fee_pct` (default 100). Made automatically after the last failed attempt or a refusal (the
// workflow's startReturn activity), or by the merchant for a failed delivery (POST /v1/deliveries/{id}/return). One
// per original: the original is locked while its return is made, so a retry or a race finds the first one.
import { randomInt, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config.js';
import { inTransaction, type Pool } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import { clampDate } from '../http/schemas.js';
import { adapterFor } from '../couriers/adapters/index.js';
import { returnFee } from '../couriers/adapters/rate-card.js';
import { courierById } from '../couriers/repository.js';
import { normalisePayload, payloadHash } from '../quotes/payload.js';
import { insertQuotes } from '../quotes/repository.js';
import { findDelivery, type DeliveryRow } from './repository.js';
import { insertDelivery } from './start-repository.js';
import { linkReturn, lockForReturn } from './return-repository.js';
import { ensureDeliveryWorkflow } from './start.js';

/** Why a delivery cannot return to the sender now (the API answers 409 return_not_allowed). */
export class ReturnNotAllowedError extends Error {}

export interface ReturnDeps {
  pool: Pool;
  config: Config;
  temporal?: Client;
}

/** ETA of a return whose company gave no quote for the swapped route (the SLA deadline counts from it). */
const FALLBACK_ETA_MINUTES = 24 * 60;

/** Why `d` cannot get a return made by hand, or null. The workflow's own return only needs `d` not to be a return. */
export function returnRefusal(
  d: Pick<DeliveryRow, 'status' | 'return_of' | 'return_delivery_id'>,
  manual: boolean,
): string | null {
  if (d.return_of) return 'This delivery is itself a return to sender: it cannot be returned.';
  if (!manual) return null;
  if (d.return_delivery_id) return `This delivery already has a return to sender (${d.return_delivery_id}).`;
  if (d.status !== 'failed') return `The delivery is ${d.status}: only a failed delivery returns to the sender.`;
  return null;
}

/** The company's price and ETA for the swapped route, times its return_fee_pct; the original's fee when it gives none. */
async function priceReturn(pool: Pool, original: DeliveryRow) {
  const courier = await courierById(pool, original.company_id);
  let quote = null;
  try {
    quote = courier
      ? await adapterFor(courier).quote({
          origin: original.destination,
          destination: original.origin,
          parcel: original.parcel,
        })
      : null;
  } catch {
    quote = null; // the company failed to answer: the return still goes, at the original's fee
  }
  return {
    feeAoa: returnFee(quote?.fee_aoa ?? original.quoted_fee_aoa, courier?.rate_card),
    etaMinutes: quote?.eta_minutes ?? FALLBACK_ETA_MINUTES,
    upstreamRef: quote?.upstream_ref ?? null,
    requirePin: courier?.capabilities?.require_delivery_pin ?? false,
  };
}

/**
 * Makes (or finds) the return of `originalId` and starts its workflow. `scope` null: the worker's (any tenant).
 * Null when the original is not found in the scope; throws ReturnNotAllowedError when `manual` and not allowed.
 */
export async function startReturn(
  deps: ReturnDeps,
  originalId: string,
  options: { scope: Scope | null; manual: boolean },
): Promise<DeliveryRow | null> {
  const { pool, config } = deps;
  const original = await findDelivery(pool, options.scope, originalId);
  if (!original) return null;
  const refused = returnRefusal(original, options.manual);
  if (refused) throw new ReturnNotAllowedError(refused);
  if (original.return_delivery_id) return started(deps, original.return_delivery_id);

  const swapped = { origin: original.destination, destination: original.origin, parcel: original.parcel };
  const price = await priceReturn(pool, original);
  const scope = { tenantId: original.tenant_id, livemode: original.livemode };
  const quoteId = randomUUID();
  await insertQuotes(pool, scope, normalisePayload(swapped), payloadHash(swapped), [
    {
      id: quoteId,
      companyId: original.company_id,
      feeAoa: price.feeAoa,
      etaMinutes: price.etaMinutes,
      validitySeconds: config.quoteValiditySeconds,
      upstreamRef: price.upstreamRef,
    },
  ]);
  const returnId = await inTransaction(pool, async (client) => {
    const now = await lockForReturn(client, original.id);
    const again = now && returnRefusal(now, options.manual);
    if (!now || again) throw new ReturnNotAllowedError(again ?? 'The delivery is gone.');
    if (now.return_delivery_id) return now.return_delivery_id; // made meanwhile (a retry, a race)
    const id = randomUUID();
    await insertDelivery(
      client,
      {
        id,
        tenant_id: original.tenant_id,
        reference: `${original.reference}-R`,
        status: 'pending',
        livemode: original.livemode,
        company_id: original.company_id,
        quote_id: quoteId,
        ...swapped,
        payment_method: 'prepaid',
        cash_collect_aoa: null,
        quoted_fee_aoa: price.feeAoa,
        delivery_pin: price.requirePin ? String(randomInt(10_000)).padStart(4, '0') : null,
        scheduled_pickup_at: null,
        scheduled_delivery_at: null,
        sla_deadline_at: clampDate(Date.now() + price.etaMinutes * 60_000 + config.slaGraceMs),
        metadata: original.metadata,
        idempotency_key: null,
        idempotency_request_hash: null,
        client_secret_hash: null,
      },
      {
        eventId: randomUUID(),
        source: options.manual ? 'api' : 'system',
        payload: { status: 'pending', payment_method: 'prepaid', return_of: original.id },
      },
    );
    await linkReturn(client, original.id, id);
    return id;
  });
  return started(deps, returnId);
}

/** The return, its workflow started (a second start finds the running one: harmless). */
async function started(deps: ReturnDeps, returnId: string): Promise<DeliveryRow> {
  const { pool, config, temporal } = deps;
  const row = (await findDelivery(pool, null, returnId))!;
  if (temporal) await ensureDeliveryWorkflow(temporal, pool, config, row);
  return row;
}
