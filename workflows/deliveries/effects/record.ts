// Effect `record`: writes the event (and the status change) in Postgres, then updates the workflow's state.
import { upsertSearchAttributes, uuid4 } from '@temporalio/workflow';
import type { Transition } from '../../../shared/deliveries/state-table.js';
import type { Status } from '../../../shared/deliveries/vocabulary.js';
import { DeliveryStatusKey } from '../../../shared/search-attributes.js';
import type { Delivery } from '../delivery.js';
import { local, regular } from '../proxies.js';
import type { Message, RecordExtra } from './message.js';

/** Records an event (and the status change, when `to` is given) in Postgres, then updates the workflow's state. */
export async function recordEvent(
  d: Delivery,
  to: Status | null,
  eventType: string,
  payload: Record<string, unknown>,
  source: string,
  extra: RecordExtra = {},
): Promise<void> {
  const { deliveryId, tenantId, webhooks } = d.input;
  const event = {
    deliveryId,
    tenantId,
    eventId: uuid4(),
    eventType,
    occurredAt: new Date().toISOString(),
    source,
    payload,
    toStatus: to,
    ...extra,
  };
  await (d.flooded ? regular.recordEvent : local.recordEvent)({ ...event, webhooks: webhooks ?? null });
  if (to && to !== d.state.status) {
    d.state.enter(to);
    upsertSearchAttributes([{ key: DeliveryStatusKey, value: d.state.status }]);
  }
}

/** The status a transition leads to: `previous` is the status before the stall (`pending` when none). */
export const targetOf = (d: Delivery, t: Transition): Status | null =>
  t.to === 'previous' ? (d.state.previousStatus ?? 'pending') : t.to;

export function record(d: Delivery, t: Transition, msg: Message): Promise<void> {
  return recordEvent(d, targetOf(d, t), t.event, msg.payload, msg.source ?? t.source, msg.extra);
}
