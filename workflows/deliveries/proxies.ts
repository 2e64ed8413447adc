// The delivery workflow's activities, with the timeouts and retries each kind of call needs.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { DeliveryActivities } from '../../activities/deliveries/activities.js';
import {
  CourierNotFound,
  CourierRejected,
  DeliveryNotFound,
  type DeliveryTimeouts,
} from '../../shared/deliveries/definitions.js';
import {
  BOOKING_FIRST_ATTEMPT_MS,
  CANCEL_ATTEMPT_MS,
  CANCEL_MAX_ATTEMPTS,
  CANCEL_TOTAL_MS,
  DISPATCH_ATTEMPT_MS,
  RECORD_ATTEMPT_MS,
  RECORD_MAX_INTERVAL_MS,
} from '../../shared/timeouts.js';

// Short activities: a worker that dies holding one delays the delivery by its timeout, so keep it tight.
export const regular = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: RECORD_ATTEMPT_MS,
  retry: { initialInterval: '1s', maximumInterval: RECORD_MAX_INTERVAL_MS },
});

// Events are written by local activities: they run inside the workflow task that decided them, so a fleet event costs
// one workflow task, and their webhooks leave from the worker (src/webhooks/dispatcher.ts).
export const local = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: RECORD_ATTEMPT_MS,
  retry: { initialInterval: '1s', maximumInterval: RECORD_MAX_INTERVAL_MS },
});

// Automatic failover re-quotes the tenant's companies (each call bounded by the company's timeout) a few times at
// most: a failure to plan stalls the delivery for an operator rather than holding it.
export const { planRedispatch } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '1s', maximumAttempts: 3 },
});

// A return to sender is created and booked once (one per original, however often this runs): retried until it is,
// each try bounded (it asks the courier for a price, under the company's own timeout).
export const { startReturn: startReturnActivity } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: RECORD_MAX_INTERVAL_MS },
});

// A cancellation the merchant waits on asks the courier a bounded number of times, never under the workflow's lock:
// each call at most 3 s, 3 tries, 10 s in all (then the delivery is cancelled and the release goes on in the
// background, see bookingReleaseWorkflow). DELETE /v1/deliveries/{id} waits at most 15 s for the workflow.
export const { cancelBooking: askCourier } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: CANCEL_ATTEMPT_MS,
  scheduleToCloseTimeout: CANCEL_TOTAL_MS,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumAttempts: CANCEL_MAX_ATTEMPTS },
});

/** A booking failure no retry mends: the courier refused it, the delivery or its company is gone. */
export const FINAL_BOOKING_ERRORS = [CourierRejected, DeliveryNotFound, CourierNotFound] as const;

/**
 * The first attempt of the booking a delivery created `pending` starts with, in the workflow's first task: it costs
 * no activity task and no workflow task of its own. One try, short (the courier's call capped at
 * BOOKING_FIRST_CALL_MAX_MS): while a local activity runs, the workflow takes no update, so a merchant's cancellation
 * waits for it.
 */
export const { dispatchDelivery: bookHere } = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: BOOKING_FIRST_ATTEMPT_MS,
  retry: { maximumAttempts: 1 },
});

/**
 * The booking as a regular activity, retried as the delivery's input says; a refusal or an unknown delivery is final.
 * `afterFirstAttempt`: the attempts after one made in the workflow task (bookHere), on the same schedule: one fewer,
 * and the workflow waited the first interval already (handlers/book.ts).
 */
export function dispatchProxy(timeouts: DeliveryTimeouts, afterFirstAttempt = false) {
  const { maximumAttempts, initialIntervalMs, maximumIntervalMs } = timeouts.dispatch;
  return proxyActivities<DeliveryActivities>({
    startToCloseTimeout: DISPATCH_ATTEMPT_MS,
    retry: {
      maximumAttempts: afterFirstAttempt ? Math.max(1, maximumAttempts - 1) : maximumAttempts,
      initialInterval: afterFirstAttempt ? Math.min(2 * initialIntervalMs, maximumIntervalMs) : initialIntervalMs,
      maximumInterval: maximumIntervalMs,
      nonRetryableErrorTypes: [...FINAL_BOOKING_ERRORS],
    },
  }).dispatchDelivery;
}
