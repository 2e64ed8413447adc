// The worker's delivery metrics, counted from the events the delivery workflows record (the recordEvent activity),
// once per event: a retried activity records nothing twice and counts nothing twice.
import type { Pool } from '../platform/db.js';
import { deliveryRedispatches, deliveryStalls, deliveryTransitions } from '../platform/observability/metrics.js';
import { courierSlugOfDelivery } from './metrics-repository.js';

export function observeRecordedEvent(
  pool: Pool,
  event: { deliveryId: string; eventType: string; payload: Record<string, unknown> | null; source?: string },
): void {
  const payload = event.payload ?? {};
  if (payload.ignored) return;
  deliveryTransitions.inc({ type: event.eventType });
  if (event.eventType === 'delivery.stalled') {
    const reason = String(payload.reason ?? 'unknown');
    // The courier the delivery is booked with (one read by primary key, only for stalls), without holding the activity.
    courierSlugOfDelivery(pool, event.deliveryId).then(
      (courier) => deliveryStalls.inc({ reason, courier: courier ?? 'none' }),
      () => deliveryStalls.inc({ reason, courier: 'unknown' }),
    );
  } else if (event.eventType === 'delivery.redispatched') {
    // Automatic failover records payload.automatic = true and its reason; an operator's or a merchant's (source api,
    // POST /v1/deliveries/{id}/recover) redispatch has neither.
    const automatic = payload.automatic === true;
    const by = event.source === 'api' ? 'merchant' : 'operator';
    deliveryRedispatches.inc({
      automatic: String(automatic),
      reason: automatic ? String(payload.reason ?? 'unknown') : by,
    });
  }
}
