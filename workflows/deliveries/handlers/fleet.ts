// Fleet events (POST /v1/fleet/{courier_slug}/events, simulated couriers): the table's `fleet.*` transitions, or an
// event recorded as ignored when the current status does not allow it.
import { uuid4 } from '@temporalio/workflow';
import type { DeliveryInboxItem, FleetEvent } from '../../../shared/deliveries/definitions.js';
import { pickCourierPayload } from '../../../shared/deliveries/courier-payload.js';
import { allows, transitionOf, type Trigger } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import { recordEvent } from '../effects/record.js';
import { stallPayload } from '../effects/stall.js';
import { local, regular } from '../proxies.js';
import { fire } from '../fire.js';
import {
  ATTEMPT_FAILURE_REASONS,
  DEFAULT_MAX_DELIVERY_ATTEMPTS,
  attemptOutcome,
} from '../../../shared/deliveries/vocabulary.js';

/** Wrong PINs on `delivered` before the delivery goes to `stalled` (reason `pin_attempts_exceeded`). */
const MAX_PIN_ATTEMPTS = 5;
/** Queued fleet events the state machine ignores are recorded this many at a time (one activity per batch). */
const IGNORED_BATCH_MAX = 200;

const triggerOf = (event: FleetEvent) => `fleet.${event.eventType}` as Trigger;

/**
 * A fleet event's recorded payload. The courier's fields go under `courier` (allow-listed again here: a signal may
 * come from an older API); the top-level fields are the service's own, set after copying, so a courier cannot
 * forge `ignored` & co.
 */
const fleetPayload = (event: FleetEvent): Record<string, unknown> => ({
  courier: pickCourierPayload(event.payload),
  courier_occurred_at: event.occurredAt,
  ...(event.webhookId ? { webhook_id: event.webhookId } : {}),
});

/**
 * Why a fleet event changes nothing now, or null when the state machine takes it. An event from a company the
 * delivery has moved away from (failover, an operator's redispatch) is about the old job, never the new booking;
 * events that name no company (older senders) are not checked.
 */
function ignoredBecause(d: Delivery, event: FleetEvent): string | null {
  if (event.companyId !== undefined && event.companyId !== d.state.companyId) return 'superseded_booking';
  return allows(triggerOf(event), d.state.status) ? null : `not_allowed_from_${d.state.status}`;
}

/** Takes one fleet event. Call under the lock. */
export async function onFleetEvent(d: Delivery, event: FleetEvent): Promise<void> {
  const trigger = triggerOf(event);
  const payload = fleetPayload(event);
  const ignore = (reason: string, extra: Record<string, unknown> = {}) =>
    recordEvent(
      d,
      null,
      transitionOf(trigger).event,
      { ...payload, ...extra, ignored: true, reason, status: d.state.status },
      'fleet_webhook',
    );
  const refused = ignoredBecause(d, event);
  if (refused) return ignore(refused);
  const pinChecked = event.eventType === 'delivered' && d.input.requireDeliveryPin;
  if (pinChecked && !event.pinVerified) {
    await ignore('pin_mismatch', { pin_verified: false });
    // Guessing the 4-digit PIN stops after MAX_PIN_ATTEMPTS wrong ones: the delivery stalls for an operator.
    if (++d.state.pinAttempts >= MAX_PIN_ATTEMPTS)
      await fire(d, 'pin_attempts_exceeded', { payload: stallPayload(d, 'pin_attempts_exceeded') });
    return;
  }
  if (event.eventType === 'attempt_failed') return onAttemptFailed(d, payload);
  // A courier that fails the job before pickup: with automatic failover, the next company takes it. The outcome
  // (delivery.redispatched, or delivery.stalled when no company qualifies) keeps the fleet webhook-id, as any
  // recorded fleet event does, so the test helper that sent it (and an operator) finds what it became.
  const webhook = event.webhookId ? { webhook_id: event.webhookId } : {};
  await fire(
    d,
    trigger,
    { payload: pinChecked ? { ...payload, pin_verified: true } : payload },
    { reason: 'courier_failed', extra: { courier_payload: payload.courier, ...webhook } },
  );
}

/**
 * A failed delivery attempt: `delivery.attempt_failed` {attempt, reason}, back to `in_transit`; after the last attempt
 * (the tenant's max_delivery_attempts), or at once on a refusal, the delivery fails and returns to the sender.
 */
async function onAttemptFailed(d: Delivery, payload: Record<string, unknown>): Promise<void> {
  const sent = (payload.courier as { reason?: unknown }).reason;
  // The API checks the reason; a signal from elsewhere with another one counts as `other`.
  const reason = ATTEMPT_FAILURE_REASONS.find((r) => r === sent) ?? 'other';
  const attempt = d.state.failedAttempts + 1;
  const max = d.input.maxDeliveryAttempts ?? DEFAULT_MAX_DELIVERY_ATTEMPTS;
  const outcome = attemptOutcome(attempt, reason, max);
  // attempts_left 0: the delivery fails next (what the test helper waits for).
  const attemptsLeft = outcome ? 0 : max - attempt;
  await fire(d, 'fleet.attempt_failed', { payload: { ...payload, attempt, reason, attempts_left: attemptsLeft } });
  d.state.failedAttempts = attempt;
  if (outcome) await fire(d, 'attempts_exhausted', { payload: { reason: outcome, attempts: attempt } });
}

/** How many messages at the head of the inbox are fleet events the current state does not allow (at most a batch). */
function ignorableAtHead(d: Delivery): number {
  const { inbox } = d.state;
  let n = 0;
  while (n < inbox.length && n < IGNORED_BATCH_MAX) {
    const item = inbox[n];
    if (item.kind !== 'fleet' || ignoredBecause(d, item.event) === null) break;
    n++;
  }
  return n;
}

/** A flood (several such events queued): whether to record them together, one activity for the batch. */
export const floodAtHead = (d: Delivery) => ignorableAtHead(d) >= 2;

/** Records the ignorable head of the inbox (ignorableAtHead) as ignored events, in one activity. Call under the lock. */
export async function ignoreQueuedFleetEvents(d: Delivery): Promise<void> {
  const n = ignorableAtHead(d);
  if (n === 0) return; // the state changed while waiting for the lock: the main loop takes them one by one
  const occurredAt = new Date().toISOString();
  const events = d.state.inbox.splice(0, n).map((item) => {
    const event = (item as Extract<DeliveryInboxItem, { kind: 'fleet' }>).event;
    return {
      eventId: uuid4(),
      eventType: transitionOf(triggerOf(event)).event,
      occurredAt,
      source: 'fleet_webhook',
      payload: { ...fleetPayload(event), ignored: true, reason: ignoredBecause(d, event), status: d.state.status },
    };
  });
  const { deliveryId, tenantId } = d.input;
  await (d.flooded ? regular : local).recordIgnoredEvents({ deliveryId, tenantId, events });
}
