// Activities of the delivery workflow. Status is written to Postgres here, never by the API:
// one transaction per status change, idempotent on the workflow-generated event id.
// Thin wrappers: the work is in src/deliveries (repository.ts, dispatch.ts); here errors become Temporal failures.
import { ApplicationFailure, log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Config } from '../../src/platform/config.js';
import type { Pool } from '../../src/platform/db.js';
import { CourierRejectedError, type BookingResult } from '../../src/couriers/adapters/adapter.js';
import {
  createDispatchService,
  DispatchTargetMissingError,
  sendCourierUpdate,
  type CourierUpdateCall,
} from '../../src/deliveries/dispatch.js';
import { createFailoverService, type PlanInput } from '../../src/deliveries/failover.js';
import { CourierRejected, type RedispatchPlan } from '../../shared/deliveries/definitions.js';
import { recordIgnoredEvents, type RecordEventInput } from '../../src/deliveries/repository.js';
import { recordEventWithMessage, type WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import type { WebhookSender } from '../../src/webhooks/sender.js';
import { smsDefaults } from '../../src/notifications/enqueue.js';
import { observeRecordedEvent } from '../../src/deliveries/event-metrics.js';
import { ReturnNotAllowedError, startReturn, type ReturnDeps } from '../../src/deliveries/returns.js';

/** With `webhooks` (the delivery workflow's setting), the event's merchant webhooks leave through the outbox. */
export type RecordInput = RecordEventInput & { webhooks?: { schedule?: number[] } | null };

/** Creates and books the return and starts its workflow; a retry finds the first one. A refusal is final. */
async function startReturnOf(deps: ReturnDeps, deliveryId: string): Promise<{ returnDeliveryId: string | null }> {
  try {
    const made = await startReturn(deps, deliveryId, { scope: null, manual: false });
    return { returnDeliveryId: made?.id ?? null };
  } catch (err) {
    if (err instanceof ReturnNotAllowedError) throw ApplicationFailure.nonRetryable(err.message, 'ReturnNotAllowed');
    throw err;
  }
}

/** One booking attempt (dispatchDelivery). */
interface BookingCall {
  deliveryId: string;
  /** 1, then one more per redispatch: with the delivery's id, the courier's Idempotency-Key. */
  bookingNumber?: number;
  /** Caps the company's own timeout: the first attempt, which the workflow waits on in its task. */
  maxTimeoutMs?: number;
}

/** `temporal`: the worker's client, which starts the simulated test couriers' movement (src/deliveries/dispatch.ts). */
export function createDeliveryActivities(deps: {
  config: Config;
  pool: Pool;
  webhooks: WebhookDispatcher;
  sender: WebhookSender;
  temporal?: Client;
}) {
  const { pool, webhooks, sender } = deps;
  const dispatch = createDispatchService(deps);
  const failover = createFailoverService(deps);

  return {
    /**
     * Inserts the event and applies the status change in one transaction, with the event's webhook message when
     * `webhooks` is set (then sent from this worker at once, in the background). A retry with the same event id
     * changes nothing. Runs as a local activity since the outbox (older histories ran it as an activity).
     */
    async recordEvent(input: RecordInput): Promise<{ inserted: boolean }> {
      const { webhooks: settings, ...event } = input;
      const sms = smsDefaults(deps.config); // the recipient's SMS, when the event is one they hear of
      const { inserted, message } = await recordEventWithMessage(pool, event, Boolean(settings), sms);
      if (message) webhooks.dispatch(message, settings?.schedule);
      if (inserted) observeRecordedEvent(pool, event);
      return { inserted };
    },

    /** Sends the webhook of an event recorded before the workflow started (`delivery.created`, written by the API). */
    async announceEvent(input: {
      tenantId: string;
      deliveryId: string;
      eventId: string;
      webhooks: { schedule?: number[] };
    }): Promise<void> {
      const message = await sender.prepareMessage(input);
      if (message)
        webhooks.dispatch(
          { ...message, tenantId: input.tenantId, deliveryId: input.deliveryId, eventId: input.eventId },
          input.webhooks.schedule,
        );
    },

    /**
     * Records events that change nothing (fleet events the state machine ignored), many in one statement: a courier
     * flooding a delivery costs one activity per batch. Ids are the workflow's, so a retry inserts nothing twice.
     */
    async recordIgnoredEvents(input: {
      deliveryId: string;
      tenantId: string;
      events: {
        eventId: string;
        eventType: string;
        occurredAt: string;
        source: string;
        payload: Record<string, unknown>;
      }[];
    }): Promise<{ inserted: number }> {
      return recordIgnoredEvents(pool, input);
    },

    /** Books the delivery with its company. A courier's refusal is final (CourierRejected); failures are retried. */
    async dispatchDelivery(input: BookingCall): Promise<BookingResult & { courierName: string }> {
      try {
        return await dispatch.book(input.deliveryId, input.bookingNumber ?? 1, input.maxTimeoutMs);
      } catch (err) {
        if (err instanceof DispatchTargetMissingError) throw ApplicationFailure.nonRetryable(err.message, err.kind);
        if (err instanceof CourierRejectedError) {
          throw ApplicationFailure.nonRetryable(err.message, CourierRejected, { status: err.status });
        }
        log.warn('dispatch failed, will retry', { deliveryId: input.deliveryId, error: (err as Error).message });
        throw err;
      }
    },

    /**
     * Asks the courier to cancel a booked job: 'refused' when it says no (409/422); throws when it fails or does not
     * answer (retryable). `maxTimeoutMs` caps the company's own timeout, so a cancellation the merchant waits on
     * stays short whatever the company's setting.
     */
    async cancelBooking(input: {
      companyId: string;
      trackingRef: string;
      maxTimeoutMs?: number;
    }): Promise<'cancelled' | 'refused'> {
      return dispatch.cancel(input);
    },

    /** The recipient's answers to the booked courier (courierUpdateWorkflow): 'refused' is final, failures retried. */
    sendCourierUpdate: (input: CourierUpdateCall) => sendCourierUpdate(pool, input),

    /**
     * Automatic failover: the company to book instead of the delivery's current one (quoted again for its route and
     * parcel, within the fee ceiling, preferred companies first), or why none qualifies.
     */
    async planRedispatch(input: PlanInput & { tenantId: string }): Promise<RedispatchPlan> {
      return failover.plan(input);
    },

    /** The return to sender of a delivery that failed (src/deliveries/returns.ts): one per delivery, retry-safe. */
    startReturn: (input: { deliveryId: string; tenantId: string }) => startReturnOf(deps, input.deliveryId),

    /** For an operator's redispatch to another company: the company must be active and linked to the tenant. */
    async findRedispatchCompany(input: {
      tenantId: string;
      companyId: string;
    }): Promise<{ companyId: string; slug: string } | null> {
      return dispatch.redispatchCompany(input);
    },
  };
}
export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
