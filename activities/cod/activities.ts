// Activities of cash on delivery: thin wrappers over src/cod. The collection runs as the delivery workflow's
// `collectCash` effect; the overdue sweep as part of the maintenance schedule's run.
import type { Pool } from '../../src/platform/db.js';
import type { Config } from '../../src/platform/config.js';
import { collectCash } from '../../src/cod/collection.js';
import { raiseOverdue } from '../../src/cod/service.js';
import { COD_OVERDUE_BATCH } from '../../shared/cod/definitions.js';
import type { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';

export function createCodActivities(deps: { config: Config; pool: Pool; webhooks: WebhookDispatcher }) {
  const { pool, webhooks } = deps;
  return {
    /**
     * Books a delivery's collection (ledger, cod.collected, cod.discrepancy) in one transaction, then sends the events'
     * webhooks from this worker. A retry books nothing twice. False when the delivery is not cash on delivery.
     */
    async collectCash(input: {
      deliveryId: string;
      collectedAoa: number | null;
      collectedEventId: string;
      discrepancyEventId: string;
      occurredAt: string;
      webhookId: string | null;
      webhooks: { schedule?: number[] } | null;
    }): Promise<{ booked: boolean }> {
      const { webhooks: settings, ...rest } = input;
      const { booked, messages } = await collectCash(pool, { ...rest, webhooks: Boolean(settings) });
      for (const message of messages) webhooks.dispatch(message, settings?.schedule);
      return { booked };
    },

    /** Raises cod.overdue for a batch of collections past their terms (once each), and sends the webhooks. */
    async raiseOverdueBatch(): Promise<{ raised: number; more: boolean }> {
      const { raised, messages } = await raiseOverdue(pool, COD_OVERDUE_BATCH);
      for (const message of messages) webhooks.dispatch(message, deps.config.webhookScheduleMs);
      return { raised, more: raised === COD_OVERDUE_BATCH };
    },
  };
}
export type CodActivities = ReturnType<typeof createCodActivities>;
