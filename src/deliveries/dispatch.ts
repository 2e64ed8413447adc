// Booking a delivery with its courier company, and cancelling that booking: the work behind the delivery
// workflow's dispatchDelivery / cancelBooking / findRedispatchCompany activities (activities/deliveries), which
// turn the errors below into Temporal failures.
import type { Config } from '../config.js';
import { adapterFor } from '../couriers/adapters/index.js';
import type { BookingResult } from '../couriers/adapters/adapter.js';
import { courierById, linkedActiveCourier } from '../couriers/repository.js';
import type { Pool } from '../db.js';
import { bookableDelivery, rememberTrackingRef } from './repository.js';

/** The delivery or its company is gone: retrying cannot help. `kind` names the failure type. */
export class DispatchTargetMissingError extends Error {
  constructor(
    readonly kind: 'DeliveryNotFound' | 'CourierNotFound',
    message: string,
  ) {
    super(message);
    this.name = 'DispatchTargetMissingError';
  }
}

export function createDispatchService(deps: { config: Pick<Config, 'baseUrl'>; pool: Pool }) {
  const { pool, config } = deps;

  async function loadForCourier(deliveryId: string) {
    const delivery = await bookableDelivery(pool, deliveryId);
    if (!delivery) throw new DispatchTargetMissingError('DeliveryNotFound', `Delivery ${deliveryId} does not exist`);
    const courier = await courierById(pool, delivery.company_id);
    if (!courier) throw new DispatchTargetMissingError('CourierNotFound', `Courier ${delivery.company_id} does not exist`);
    return { delivery, courier };
  }

  return {
    /** Books the delivery with its company. A courier's refusal throws CourierRejectedError; other failures may pass on retry. */
    async book(deliveryId: string): Promise<BookingResult & { courierName: string }> {
      const { delivery, courier } = await loadForCourier(deliveryId);
      const result = await adapterFor(courier, { timeoutMs: courier.timeout_ms }).book({
        delivery_id: delivery.id,
        reference: delivery.reference,
        origin: delivery.origin,
        destination: delivery.destination,
        parcel: delivery.parcel,
        payment_method: delivery.payment_method,
        cash_collect_aoa: delivery.cash_collect_aoa,
        scheduled_pickup_at: delivery.scheduled_pickup_at ? new Date(delivery.scheduled_pickup_at).toISOString() : null,
        callback_url: `${config.baseUrl}/v1/fleet/${courier.slug}/events`,
      });
      // The courier may send its first fleet event before the workflow gets to record the booking: let it find the job.
      await rememberTrackingRef(pool, delivery.id, courier.id, result.tracking_ref);
      return { ...result, courierName: courier.name };
    },

    /**
     * Asks the courier to cancel a booked job: 'refused' when it says no (409/422); throws when it fails or does not
     * answer (retryable). `maxTimeoutMs` caps the company's own timeout. A company that is gone: 'cancelled'.
     */
    async cancel(input: { companyId: string; trackingRef: string; maxTimeoutMs?: number }): Promise<'cancelled' | 'refused'> {
      const courier = await courierById(pool, input.companyId);
      if (!courier) return 'cancelled';
      const timeoutMs = input.maxTimeoutMs ? Math.min(courier.timeout_ms, input.maxTimeoutMs) : courier.timeout_ms;
      return adapterFor(courier, { timeoutMs }).cancel(input.trackingRef);
    },

    /** For an operator's redispatch to another company: the company must be active and linked to the tenant. */
    async redispatchCompany(input: { tenantId: string; companyId: string }): Promise<{ companyId: string; slug: string } | null> {
      const row = await linkedActiveCourier(pool, input.tenantId, input.companyId);
      return row ? { companyId: row.id, slug: row.slug } : null;
    },
  };
}
