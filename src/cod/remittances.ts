// Remittances (design.md "Cash on delivery"; docs/cash-on-delivery.md "Remittances"): the cash a courier hands over,
// reported by the courier (signed, status `reported`) or recorded by the merchant (status `confirmed`), then confirmed
// or disputed. Each is one database transaction: the rules checked on locked collections, the remittance and its
// items, the ledger (remittance and fee deduction journal transactions) and a cod.remitted event per delivery.
import { randomUUID } from 'node:crypto';
import { inTransaction, type Pool, type PoolClient } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import { canonicalJson, sha256Hex } from '../platform/canonical.js';
import { ApiError, validationFailed, type FieldError } from '../http/problem.js';
import type { OutboxMessage } from '../webhooks/dispatcher.js';
import { recordCodEvent } from './collection.js';
import { feeDeductionEntries, remittanceEntries, type RemittedItem } from './ledger.js';
import { bookTransaction, lockCollections, setCollectionsRemittance, type CollectionRow } from './repository.js';
import {
  deliveriesById,
  deliveriesByTrackingRef,
  insertRemittance,
  lockRemittanceRef,
  remittanceById,
  remittanceByRef,
  type RemittableDelivery,
  type RemittanceRow,
} from './remittance-repository.js';

export type RemittanceMethod = 'bank_transfer' | 'cash' | 'multicaixa_express';

export interface RemittanceItemInput {
  tracking_ref?: string;
  delivery_id?: string;
  amount_aoa: number;
  fee_deducted_aoa?: number;
}

export interface RemittanceRequest {
  source: 'courier' | 'merchant' | 'test_helper';
  companyId: string;
  /** The merchant's (and test helper's) scope; a courier's remittance finds its tenant from the items. */
  scope: Scope | null;
  remittanceRef: string | null;
  paidAt: string;
  method: RemittanceMethod;
  bankReference: string | null;
  items: RemittanceItemInput[];
}

export interface RemittanceOutcome {
  remittance: RemittanceRow;
  /** False: the same remittance_ref and body again, answered as the first time. */
  created: boolean;
  messages: OutboxMessage[];
}

const hashOf = (r: RemittanceRequest) =>
  sha256Hex(
    canonicalJson({
      paid_at: new Date(r.paidAt).toISOString(),
      method: r.method,
      bank_reference: r.bankReference,
      items: r.items.map((i) => ({ ...i, fee_deducted_aoa: i.fee_deducted_aoa ?? 0 })),
    }),
  );

const keyOf = (i: RemittanceItemInput) => i.delivery_id ?? i.tracking_ref ?? '';

/** The deliveries the items name, in item order; 422 naming every item that names none (or one twice). */
async function resolveItems(client: PoolClient, r: RemittanceRequest): Promise<RemittableDelivery[]> {
  const byId = r.items.some((i) => i.delivery_id !== undefined);
  const keys = r.items.map(keyOf);
  const found = byId
    ? await deliveriesById(client, r.scope!, keys)
    : await deliveriesByTrackingRef(client, r.companyId, keys);
  const map = new Map(found.map((d) => [byId ? d.id : d.tracking_ref, d]));
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const field = byId ? 'delivery_id' : 'tracking_ref';
  r.items.forEach((item, n) => {
    const key = keyOf(item);
    const d = map.get(key);
    const pointer = `/items/${n}/${field}`;
    if (seen.has(key)) errors.push({ pointer, code: 'duplicate', detail: `items/${n}: ${key} is named twice.` });
    else if (!d || d.company_id !== r.companyId || (r.scope && !sameScope(d, r.scope)))
      errors.push({ pointer, code: 'unknown_delivery', detail: `items/${n}: no delivery ${key} with this company.` });
    seen.add(key);
  });
  if (errors.length) throw validationFailed(errors);
  return r.items.map((i) => map.get(keyOf(i))!);
}

const sameScope = (d: RemittableDelivery, s: Scope) => d.tenant_id === s.tenantId && d.livemode === s.livemode;

/** Every rule of an item on its locked collection; throws the first kind of failure, with a pointer per item. */
function checkItems(r: RemittanceRequest, deliveries: RemittableDelivery[], collections: CollectionRow[]): void {
  const byDelivery = new Map(collections.map((c) => [c.delivery_id, c]));
  const notCollected: FieldError[] = [];
  const remitted: FieldError[] = [];
  const mismatch: FieldError[] = [];
  r.items.forEach((item, n) => {
    const d = deliveries[n];
    const c = byDelivery.get(d.id);
    const fee = item.fee_deducted_aoa ?? 0;
    if (!c) {
      const detail = `items/${n}: delivery ${d.id} has no cash collected (not cash on delivery, or not delivered yet).`;
      notCollected.push({ pointer: `/items/${n}`, code: 'not_collected', detail });
    } else if (c.remittance_id) {
      const detail = `items/${n}: delivery ${d.id} is in remittance ${c.remittance_id} already.`;
      remitted.push({ pointer: `/items/${n}`, code: 'already_remitted', detail });
    } else if (item.amount_aoa + fee !== Number(c.collected_aoa)) {
      const detail = `items/${n}: amount_aoa + fee_deducted_aoa (${item.amount_aoa + fee}) must equal the cash collected (${c.collected_aoa}).`;
      mismatch.push({ pointer: `/items/${n}/amount_aoa`, code: 'remittance_amount_mismatch', detail });
    } else if (fee > Number(d.quoted_fee_aoa)) {
      const detail = `items/${n}: fee_deducted_aoa (${fee}) is more than the delivery's locked fee (${d.quoted_fee_aoa}).`;
      mismatch.push({ pointer: `/items/${n}/fee_deducted_aoa`, code: 'remittance_amount_mismatch', detail });
    }
  });
  if (notCollected.length) throw validationFailed(notCollected);
  const fail = (code: 'already_remitted' | 'remittance_amount_mismatch', errors: FieldError[]) =>
    new ApiError(422, code, errors.map((e) => e.detail).join(' '), errors);
  if (remitted.length) throw fail('already_remitted', remitted);
  if (mismatch.length) throw fail('remittance_amount_mismatch', mismatch);
}

/** The tenant and mode of a courier's remittance: the items' (all one), else 422 remittance_mixed_tenants. */
function scopeOfItems(deliveries: RemittableDelivery[]): Scope {
  const scopes = new Set(deliveries.map((d) => `${d.tenant_id}:${d.livemode}`));
  if (scopes.size > 1) {
    throw new ApiError(
      422,
      'remittance_mixed_tenants',
      'The items of a remittance must all belong to one merchant (and mode): send one remittance per merchant.',
    );
  }
  return { tenantId: deliveries[0].tenant_id, livemode: deliveries[0].livemode };
}

/** Creates a remittance (or answers the one its remittance_ref made with the same body). */
export async function createRemittance(pool: Pool, r: RemittanceRequest): Promise<RemittanceOutcome> {
  const hash = hashOf(r);
  return inTransaction(pool, async (client) => {
    if (r.remittanceRef !== null) {
      await lockRemittanceRef(client, r.companyId, r.remittanceRef);
      const existing = await remittanceByRef(client, r.companyId, r.remittanceRef);
      if (existing) {
        if (existing.request_hash === hash) return { remittance: existing, created: false, messages: [] };
        throw new ApiError(
          409,
          'remittance_ref_reused',
          `remittance_ref ${r.remittanceRef} was reported with another body: send the same body, or a new remittance_ref.`,
        );
      }
    }
    const deliveries = await resolveItems(client, r);
    const scope = r.scope ?? scopeOfItems(deliveries);
    const collections = await lockCollections(
      client,
      deliveries.map((d) => d.id),
    );
    checkItems(r, deliveries, collections);
    return book(client, r, scope, deliveries, hash);
  });
}

async function book(
  client: PoolClient,
  r: RemittanceRequest,
  scope: Scope,
  deliveries: RemittableDelivery[],
  hash: string,
): Promise<RemittanceOutcome> {
  const id = randomUUID();
  const confirmed = r.source === 'merchant';
  const items: RemittedItem[] = r.items.map((i, n) => ({
    deliveryId: deliveries[n].id,
    amountAoa: i.amount_aoa,
    feeDeductedAoa: i.fee_deducted_aoa ?? 0,
  }));
  const total = items.reduce((sum, i) => sum + i.amountAoa, 0);
  const fees = items.reduce((sum, i) => sum + i.feeDeductedAoa, 0);
  const status = confirmed ? 'confirmed' : 'reported';
  const row = {
    id,
    tenant_id: scope.tenantId,
    livemode: scope.livemode,
    company_id: r.companyId,
    remittance_ref: r.remittanceRef,
    source: r.source,
    status: status as RemittanceRow['status'],
    method: r.method,
    bank_reference: r.bankReference,
    paid_at: new Date(r.paidAt),
    total_aoa: String(total),
    fee_deducted_aoa: String(fees),
    request_hash: hash,
  };
  const lines = items.map((i, n) => ({
    delivery_id: i.deliveryId,
    position: n,
    tracking_ref: deliveries[n].tracking_ref,
    amount_aoa: String(i.amountAoa),
    fee_deducted_aoa: String(i.feeDeductedAoa),
  }));
  await insertRemittance(client, row, lines);
  const ids = items.map((i) => i.deliveryId);
  await setCollectionsRemittance(client, ids, id);
  const journal = { tenantId: scope.tenantId, livemode: scope.livemode, companyId: r.companyId, remittanceId: id };
  const memo = { remittance_ref: r.remittanceRef, method: r.method };
  await bookTransaction(
    client,
    { id: randomUUID(), ...journal, kind: 'remittance', key: `remittance:${id}`, memo },
    remittanceEntries(items, confirmed),
  );
  await bookTransaction(
    client,
    { id: randomUUID(), ...journal, kind: 'fee_deduction', key: `fee_deduction:${id}`, memo },
    feeDeductionEntries(items),
  );
  const messages: OutboxMessage[] = [];
  for (const i of items) {
    const payload = {
      remittance_id: id,
      remittance_ref: r.remittanceRef,
      company_id: r.companyId,
      amount_aoa: i.amountAoa,
      fee_deducted_aoa: i.feeDeductedAoa,
      method: r.method,
      status,
    };
    const source = r.source === 'courier' ? 'fleet_webhook' : r.source === 'merchant' ? 'api' : 'test_helper';
    const event = { deliveryId: i.deliveryId, tenantId: scope.tenantId, eventType: 'cod.remitted', payload };
    const message = await recordCodEvent(client, event, true, source);
    if (message) messages.push(message);
  }
  const remittance = (await remittanceById(client, scope, id))!;
  return { remittance, created: true, messages };
}
