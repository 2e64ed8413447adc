// Effect `collectCash` (fleet `delivered`): a cash-on-delivery delivery books the cash the courier collected
// (payload.courier.cash_collected_aoa, absent: the expected amount) in the ledger, with cod.collected and, when it
// differs, cod.discrepancy. Once per delivery: the activity is idempotent on the delivery (docs/cash-on-delivery.md).
import { proxyActivities, proxyLocalActivities, uuid4 } from '@temporalio/workflow';
import type { CodActivities } from '../../../activities/cod/activities.js';
import type { Transition } from '../../../shared/deliveries/state-table.js';
import { RECORD_ATTEMPT_MS, RECORD_MAX_INTERVAL_MS } from '../../../shared/timeouts.js';
import type { Delivery } from '../delivery.js';
import type { Message } from './message.js';

const options = {
  startToCloseTimeout: RECORD_ATTEMPT_MS,
  retry: { initialInterval: '1s', maximumInterval: RECORD_MAX_INTERVAL_MS },
};
const local = proxyLocalActivities<CodActivities>(options);
const regular = proxyActivities<CodActivities>(options);

export async function collectCash(d: Delivery, _t: Transition, msg: Message): Promise<void> {
  if (d.input.cashOnDelivery === false) return;
  const courier = msg.payload.courier as { cash_collected_aoa?: unknown } | undefined;
  const declared = courier?.cash_collected_aoa;
  const webhookId = msg.payload.webhook_id;
  await (d.flooded ? regular : local).collectCash({
    deliveryId: d.input.deliveryId,
    collectedAoa: typeof declared === 'number' && Number.isSafeInteger(declared) && declared >= 0 ? declared : null,
    collectedEventId: uuid4(),
    discrepancyEventId: uuid4(),
    occurredAt: new Date().toISOString(),
    webhookId: typeof webhookId === 'string' ? webhookId : null,
    webhooks: d.input.webhooks ?? null,
  });
}
