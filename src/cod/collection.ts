// Collection at the door (docs/cash-on-delivery.md "Collection"): the fleet `delivered` event of a cash-on-delivery
// delivery books the cash the courier collected, once per delivery, with the events cod.collected and, when it differs
// from what was expected, cod.discrepancy: one database transaction (ledger, collection, events and their webhook
// messages). Run by the delivery workflow's `collectCash` effect (activities/cod/activities.ts).
import { randomUUID } from 'node:crypto';
import { inTransaction, type Pool, type PoolClient } from '../platform/db.js';
import { recordEventWithMessageOn, type OutboxMessage } from '../webhooks/dispatcher.js';
import { collectionEntries } from './ledger.js';
import { bookTransaction, collectionTarget, insertCollection } from './repository.js';

export interface CollectInput {
  deliveryId: string;
  /** The cash the courier declared (payload.cash_collected_aoa), or null when it said nothing. */
  collectedAoa: number | null;
  /** Ids of the events, chosen by the workflow (a retry reuses them). */
  collectedEventId: string;
  discrepancyEventId: string;
  occurredAt: string;
  /** The fleet webhook-id of the `delivered` event, kept in the events' payload. */
  webhookId?: string | null;
  /** Whether the events' webhook messages are stored (the delivery workflow's setting). */
  webhooks: boolean;
}

export interface CollectResult {
  /** False when the delivery is not cash on delivery, or its cash was booked already. */
  booked: boolean;
  messages: OutboxMessage[];
}

/** Records one event of a delivery (no status change) with its webhook message, in the caller's transaction. */
export async function recordCodEvent(
  client: PoolClient,
  e: { deliveryId: string; tenantId: string; eventId?: string; eventType: string; payload: Record<string, unknown> },
  webhooks: boolean,
  source = 'system',
): Promise<OutboxMessage | null> {
  const { message } = await recordEventWithMessageOn(
    client,
    {
      deliveryId: e.deliveryId,
      tenantId: e.tenantId,
      eventId: e.eventId ?? randomUUID(),
      eventType: e.eventType,
      occurredAt: new Date().toISOString(),
      source,
      payload: e.payload,
      toStatus: null,
    },
    webhooks,
  );
  return message;
}

export async function collectCash(pool: Pool, input: CollectInput): Promise<CollectResult> {
  return inTransaction(pool, async (client) => {
    const target = await collectionTarget(client, input.deliveryId);
    if (!target || target.payment_method !== 'cod') return { booked: false, messages: [] };
    const expected = Number(target.cash_collect_aoa ?? 0);
    const declared = input.collectedAoa !== null;
    const collected = input.collectedAoa ?? expected;
    const row = await insertCollection(client, {
      delivery_id: input.deliveryId,
      tenant_id: target.tenant_id,
      livemode: target.livemode,
      company_id: target.company_id,
      expected_aoa: expected,
      collected_aoa: collected,
      declared,
      terms_hours: target.terms_hours,
    });
    if (!row) return { booked: false, messages: [] };
    const ids = { tenantId: target.tenant_id, livemode: target.livemode, companyId: target.company_id };
    await bookTransaction(
      client,
      {
        id: randomUUID(),
        ...ids,
        kind: 'collection',
        key: `collection:${input.deliveryId}`,
        deliveryId: input.deliveryId,
        memo: { declared, expected_aoa: expected, ...(input.webhookId ? { webhook_id: input.webhookId } : {}) },
      },
      collectionEntries(input.deliveryId, collected),
    );
    const webhook = input.webhookId ? { webhook_id: input.webhookId } : {};
    const event = { deliveryId: input.deliveryId, tenantId: target.tenant_id };
    const messages: (OutboxMessage | null)[] = [
      await recordCodEvent(
        client,
        {
          ...event,
          eventId: input.collectedEventId,
          eventType: 'cod.collected',
          payload: {
            expected_aoa: expected,
            collected_aoa: collected,
            company_id: target.company_id,
            declared,
            ...webhook,
          },
        },
        input.webhooks,
        'fleet_webhook',
      ),
    ];
    if (collected !== expected) {
      const discrepancy = {
        expected_aoa: expected,
        collected_aoa: collected,
        difference_aoa: collected - expected,
        company_id: target.company_id,
        ...webhook,
      };
      const payload = {
        ...event,
        eventId: input.discrepancyEventId,
        eventType: 'cod.discrepancy',
        payload: discrepancy,
      };
      messages.push(await recordCodEvent(client, payload, input.webhooks, 'fleet_webhook'));
    }
    return { booked: true, messages: messages.filter((m): m is OutboxMessage => m !== null) };
  });
}
