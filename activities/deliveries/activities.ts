// Activities of the delivery workflow. Status is written to Postgres here, never by the API:
// one transaction per status change, idempotent on the workflow-generated event id.
import { ApplicationFailure, log } from '@temporalio/activity';
import type { Config } from '../../src/config.js';
import type { Pool } from '../../src/db.js';
import { inTransaction } from '../../src/db.js';
import { courierById } from '../../src/couriers/repository.js';
import type { Status } from '../../workflows/deliveries/states.js';
import { CourierRejectedError, type BookingResult } from '../couriers/adapter.js';
import { adapterFor } from '../couriers/index.js';

export interface RecordEventInput {
  deliveryId: string;
  tenantId: string;
  eventId: string;
  eventType: string;
  occurredAt: string;
  source: string;
  payload: Record<string, unknown> | null;
  /** The new status; null records an event that changes no status (dispatched, ignored fleet events). */
  toStatus: Status | null;
  trackingRef?: string | null;
  companyId?: string;
}

export function createDeliveryActivities(deps: { config: Config; pool: Pool }) {
  const { pool, config } = deps;

  async function loadForCourier(deliveryId: string) {
    const { rows } = await pool.query(
      `SELECT d.id, d.reference, d.origin, d.destination, d.parcel, d.payment_method, d.cash_collect_aoa,
              d.scheduled_pickup_at, d.company_id, d.courier_tracking_ref
         FROM deliveries d WHERE d.id = $1`,
      [deliveryId],
    );
    if (!rows[0]) throw ApplicationFailure.nonRetryable(`Delivery ${deliveryId} does not exist`, 'DeliveryNotFound');
    const courier = await courierById(pool, rows[0].company_id);
    if (!courier) throw ApplicationFailure.nonRetryable(`Courier ${rows[0].company_id} does not exist`, 'CourierNotFound');
    return { delivery: rows[0], courier };
  }

  return {
    /** Inserts the event and applies the status change in one transaction. A retry with the same event id changes nothing. */
    async recordEvent(input: RecordEventInput): Promise<{ inserted: boolean }> {
      return inTransaction(pool, async (client) => {
        const inserted = await client.query(
          `INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, occurred_at, source, payload)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
          [input.eventId, input.deliveryId, input.tenantId, input.eventType, input.occurredAt, input.source, input.payload],
        );
        if (inserted.rowCount === 0) return { inserted: false };
        await client.query(
          `UPDATE deliveries SET status = coalesce($2, status),
                  courier_tracking_ref = CASE WHEN $3::boolean THEN $4 ELSE courier_tracking_ref END,
                  company_id = coalesce($5, company_id), updated_at = now()
            WHERE id = $1`,
          [input.deliveryId, input.toStatus, input.trackingRef !== undefined, input.trackingRef ?? null, input.companyId ?? null],
        );
        return { inserted: true };
      });
    },

    /** Books the delivery with its company. A courier's refusal is final (CourierRejected); failures are retried. */
    async dispatchDelivery(input: { deliveryId: string }): Promise<BookingResult & { courierName: string }> {
      const { delivery, courier } = await loadForCourier(input.deliveryId);
      try {
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
        return { ...result, courierName: courier.name };
      } catch (err) {
        if (err instanceof CourierRejectedError) {
          throw ApplicationFailure.nonRetryable(err.message, 'CourierRejected', { status: err.status });
        }
        log.warn('dispatch failed, will retry', { deliveryId: input.deliveryId, error: (err as Error).message });
        throw err;
      }
    },

    /** Asks the courier to cancel a booked job. */
    async cancelBooking(input: { companyId: string; trackingRef: string }): Promise<'cancelled' | 'refused'> {
      const courier = await courierById(pool, input.companyId);
      if (!courier) return 'cancelled';
      return adapterFor(courier, { timeoutMs: courier.timeout_ms }).cancel(input.trackingRef);
    },

    /** For an operator's redispatch to another company: the company must be active and linked to the tenant. */
    async findRedispatchCompany(input: { tenantId: string; companyId: string }): Promise<{ companyId: string; slug: string } | null> {
      const { rows } = await pool.query<{ id: string; slug: string }>(
        `SELECT c.id, c.slug FROM courier_companies c JOIN tenant_couriers tc ON tc.courier_id = c.id
          WHERE tc.tenant_id = $1 AND c.id = $2 AND c.active`,
        [input.tenantId, input.companyId],
      );
      return rows[0] ? { companyId: rows[0].id, slug: rows[0].slug } : null;
    },
  };
}
export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
