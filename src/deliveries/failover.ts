// Automatic failover (docs/deliveries.md "Automatic failover"): when a delivery's courier fails it before pickup, the
// delivery workflow asks here for the company to book instead. The tenant's companies are quoted again for the
// delivery's own route and parcel (the quote service, so each answer is a persisted quote), the ones it moved away
// from left out; among those within the fee ceiling (the fee locked at creation + max_fee_increase_aoa, however many
// moves came before) the tenant's preferred
// companies come first, in their order, then the cheapest. The quote picked is marked used by the delivery.
import type { Config } from '../platform/config.js';
import type { Pool } from '../platform/db.js';
import { createQuoteService } from '../quotes/service.js';
import { redispatchSource, useQuoteForRedispatch } from './start-repository.js';
import type { RedispatchPlan } from '../../shared/deliveries/definitions.js';

export interface PlanInput {
  deliveryId: string;
  /** The delivery's current company and those it moved away from. */
  excludeCompanyIds: string[];
  maxFeeIncreaseAoa: number;
  preferredCompanyIds: string[];
}

export function createFailoverService(deps: { pool: Pool; config: Config }) {
  const { pool } = deps;
  const quotes = createQuoteService(deps);
  return {
    async plan(input: PlanInput): Promise<RedispatchPlan> {
      const delivery = await redispatchSource(pool, input.deliveryId);
      if (!delivery) return { companyId: null, oldFeeAoa: 0, candidates: [] };
      const oldFeeAoa = delivery.quoted_fee_aoa;
      // The ceiling is the fee locked at creation (the original quote's) plus the allowance, however many times the
      // delivery has moved: never the current fee, which a redispatch raises, or two moves could add the allowance twice.
      const ceiling = delivery.locked_fee_aoa + input.maxFeeIncreaseAoa;
      const quoted = await quotes.quoteAll(
        { tenantId: delivery.tenant_id, livemode: delivery.livemode },
        { origin: delivery.origin, destination: delivery.destination, parcel: delivery.parcel },
      );
      const fresh = quoted.data.filter((q) => !input.excludeCompanyIds.includes(q.company_id));
      const rank = (companyId: string) => {
        const i = input.preferredCompanyIds.indexOf(companyId);
        return i === -1 ? input.preferredCompanyIds.length : i;
      };
      const eligible = fresh
        .filter((q) => q.fee_aoa <= ceiling)
        .sort(
          (a, b) => rank(a.company_id) - rank(b.company_id) || a.fee_aoa - b.fee_aoa || a.eta_minutes - b.eta_minutes,
        );
      const pick = eligible[0];
      if (!pick) {
        return {
          companyId: null,
          oldFeeAoa,
          candidates: [
            ...fresh.map((q) => ({ company_id: q.company_id, outcome: 'over_fee_ceiling', fee_aoa: q.fee_aoa })),
            ...quoted.failed.map((f) => ({ company_slug: f.company_slug, outcome: 'quote_failed' })),
          ],
        };
      }
      await useQuoteForRedispatch(pool, pick.quote_id, input.deliveryId);
      return {
        companyId: pick.company_id,
        slug: pick.company_slug,
        name: pick.company_name,
        feeAoa: pick.fee_aoa,
        oldFeeAoa,
        quoteId: pick.quote_id,
      };
    },
  };
}
