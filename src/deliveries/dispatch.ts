// Booking a delivery with its courier company, and cancelling that booking: the work behind the delivery
// workflow's dispatchDelivery / cancelBooking / findRedispatchCompany activities (activities/deliveries), which
// turn the errors below into Temporal failures.
// Test mode: a test delivery is booked with a simulated test courier only, a live one never with a simulated courier
// (the mode of the company must be the delivery's: no real courier is ever called for a test delivery). A simulated
// courier that moves by itself gets its movement workflow once booked (workflows/simulated-couriers).
import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Config } from '../platform/config.js';
import { adapterFor } from '../couriers/adapters/index.js';
import { simulatedMoves } from '../couriers/adapters/simulated.js';
import { courierById, linkedActiveCourier, type CourierRow } from '../couriers/repository.js';
import type { Pool } from '../platform/db.js';
import { startWorkflowOnce } from '../platform/temporal.js';
import { CourierNotFound, DeliveryNotFound } from '../../shared/deliveries/definitions.js';
import type { RecipientUpdate } from '../../shared/deliveries/vocabulary.js';
import { simulatedCourierWorkflowId } from '../../shared/simulated-couriers/definitions.js';
import type { simulatedCourierWorkflow } from '../../workflows/simulated-couriers/workflows.js';
import { bookableDelivery, rememberTrackingRef } from './repository.js';

/** The delivery or its company is gone: retrying cannot help. `kind` names the failure type. */
export class DispatchTargetMissingError extends Error {
  constructor(
    readonly kind: typeof DeliveryNotFound | typeof CourierNotFound,
    message: string,
  ) {
    super(message);
    this.name = 'DispatchTargetMissingError';
  }
}

/** The courier protocol's `Idempotency-Key` of one booking (design.md, "Courier bookings are idempotent"). */
export const bookingIdempotencyKey = (deliveryId: string, bookingNumber: number) => `${deliveryId}.${bookingNumber}`;

/** The simulated courier's job: its company, and the cash it collects on a cash-on-delivery job. */
const cashOf = (courier: CourierRow, cash: number | null) => ({
  companyId: courier.id,
  ...(cash !== null ? { cashCollectAoa: cash } : {}),
});

/** Whether a company may carry a delivery of this mode: simulated test couriers carry test deliveries, and only them. */
const sameMode = (courier: Pick<CourierRow, 'adapter'>, livemode: boolean) =>
  (courier.adapter === 'simulated') === !livemode;

/** The company's own timeout, capped at `max` when there is one (a call someone waits on). */
const cappedTimeout = (courier: CourierRow, max?: number) =>
  max ? Math.min(courier.timeout_ms, max) : courier.timeout_ms;

export function createDispatchService(deps: {
  config: Pick<Config, 'baseUrl' | 'taskQueue' | 'simulatedCourierStepMs'>;
  pool: Pool;
  /** Starts the simulated couriers' movement; without it (a worker-less test) test-auto waits like test-manual. */
  temporal?: Client;
}) {
  const { pool, config } = deps;

  async function loadForCourier(deliveryId: string) {
    const found = await bookableDelivery(pool, deliveryId);
    if (!found) throw new DispatchTargetMissingError(DeliveryNotFound, `Delivery ${deliveryId} does not exist`);
    const { delivery, courier } = found;
    if (!courier)
      throw new DispatchTargetMissingError(CourierNotFound, `Courier ${delivery.company_id} does not exist`);
    if (!sameMode(courier, delivery.livemode)) {
      // Never reached through the API (a quote's companies are of its mode); an operator's redispatch could try.
      throw new DispatchTargetMissingError(
        CourierNotFound,
        delivery.livemode
          ? `${courier.slug} is a simulated test courier: it cannot carry a live delivery`
          : `${courier.slug} is a real courier: a test delivery is booked with simulated test couriers only`,
      );
    }
    return { delivery, courier };
  }

  /** A simulated courier that moves by itself starts doing so (one workflow per job; a retried booking starts none). */
  async function startSimulatedMovement(
    deliveryId: string,
    courier: CourierRow,
    trackingRef: string,
    cash: number | null,
  ) {
    const moves = courier.adapter === 'simulated' ? simulatedMoves(courier.slug) : [];
    if (moves.length === 0 || !deps.temporal) return;
    await startWorkflowOnce<typeof simulatedCourierWorkflow>(deps.temporal, 'simulatedCourierWorkflow', {
      taskQueue: config.taskQueue,
      workflowId: simulatedCourierWorkflowId(deliveryId, trackingRef),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      args: [{ deliveryId, trackingRef, moves, stepMs: config.simulatedCourierStepMs, ...cashOf(courier, cash) }],
    });
  }

  return {
    /**
     * Books the delivery with its company (its call bounded by the company's timeout, capped at `maxTimeoutMs`). A
     * courier's refusal throws CourierRejectedError; other failures may pass on retry.
     */
    async book(deliveryId: string, bookingNumber = 1, maxTimeoutMs?: number) {
      const { delivery, courier } = await loadForCourier(deliveryId);
      const result = await adapterFor(courier, { timeoutMs: cappedTimeout(courier, maxTimeoutMs) }).book({
        delivery_id: delivery.id,
        reference: delivery.reference,
        origin: delivery.origin,
        destination: delivery.destination,
        parcel: delivery.parcel,
        payment_method: delivery.payment_method,
        cash_collect_aoa: delivery.cash_collect_aoa,
        scheduled_pickup_at: delivery.scheduled_pickup_at ? new Date(delivery.scheduled_pickup_at).toISOString() : null,
        callback_url: `${config.baseUrl}/v1/fleet/${courier.slug}/events`,
        idempotency_key: bookingIdempotencyKey(delivery.id, bookingNumber),
      });
      // The courier may send its first fleet event before the workflow gets to record the booking: let it find the job.
      await rememberTrackingRef(pool, delivery.id, courier.id, result.tracking_ref);
      // A simulated courier collects the expected cash of a cash-on-delivery job (docs/cash-on-delivery.md).
      const cash = delivery.payment_method === 'cod' ? Number(delivery.cash_collect_aoa ?? 0) : null;
      await startSimulatedMovement(delivery.id, courier, result.tracking_ref, cash);
      return { ...result, courierName: courier.name };
    },

    /**
     * Asks the courier to cancel a booked job: 'refused' when it says no (409/422); throws when it fails or does not
     * answer (retryable). `maxTimeoutMs` caps the company's own timeout. A company that is gone: 'cancelled'.
     */
    async cancel(input: {
      companyId: string;
      trackingRef: string;
      maxTimeoutMs?: number;
    }): Promise<'cancelled' | 'refused'> {
      const courier = await courierById(pool, input.companyId);
      if (!courier) return 'cancelled';
      return adapterFor(courier, { timeoutMs: cappedTimeout(courier, input.maxTimeoutMs) }).cancel(input.trackingRef);
    },

    /** For an operator's redispatch to another company: the company must be active and linked to the tenant. */
    async redispatchCompany(input: {
      tenantId: string;
      companyId: string;
    }): Promise<{ companyId: string; slug: string } | null> {
      const row = await linkedActiveCourier(pool, input.tenantId, input.companyId);
      return row ? { companyId: row.id, slug: row.slug } : null;
    },
  };
}

/** A recipient's answers for the booked job (the courierUpdateWorkflow's activity). */
export interface CourierUpdateCall {
  companyId: string;
  trackingRef: string;
  update: RecipientUpdate;
}

/**
 * Passes the recipient's answers on to the booked job (`POST {endpoint}/bookings/{ref}/updates`): 'refused' when the
 * courier says no (final); throws when it fails (retryable). A company that is gone: 'refused'.
 */
export async function sendCourierUpdate(pool: Pool, input: CourierUpdateCall): Promise<'sent' | 'refused'> {
  const courier = await courierById(pool, input.companyId);
  if (!courier) return 'refused';
  return adapterFor(courier).update(input.trackingRef, input.update);
}
