// A tenant's dispatch policy (docs/deliveries.md "Automatic failover"): whether a delivery whose courier fails it
// before pickup is rebooked with the next company, and within which limits. Read by GET /v1/settings/dispatch and
// the admin CLI; a delivery takes the policy in effect when it is created (src/deliveries/start.ts).
import { z } from 'zod';
import type { RedispatchPolicy } from '../../shared/deliveries/definitions.js';
import { DEFAULT_MAX_DELIVERY_ATTEMPTS, MAX_DELIVERY_ATTEMPTS_LIMIT } from '../../shared/deliveries/vocabulary.js';

export const DispatchPolicy = z
  .object({
    auto_redispatch: z.boolean().meta({
      description: 'Rebook automatically before pickup (off by default: the delivery stalls for an operator).',
    }),
    max_fee_increase_aoa: z
      .int()
      .min(0)
      .max(100_000_000_00)
      .meta({ description: 'The most a new company may cost over the locked fee, in centavos (0: never more).' }),
    max_redispatches: z
      .int()
      .min(0)
      .max(10)
      .meta({ description: 'How many times one delivery may move to another company.' }),
    assign_timeout_minutes: z.int().min(1).max(1440).meta({
      description: 'How long a booked delivery may wait in pending for the courier to assign it before moving on.',
    }),
    preferred_company_ids: z.array(z.uuid()).max(20).meta({
      description: 'Companies to book first, in this order; the others by fee. Each must be linked to the tenant.',
    }),
    max_delivery_attempts: z.int().min(1).max(MAX_DELIVERY_ATTEMPTS_LIMIT).meta({
      description:
        'Delivery attempts before a delivery whose attempts fail goes to failed (reason delivery_attempts_exhausted) and returns to the sender (1-5, default 2).',
    }),
  })
  .meta({
    id: 'DispatchPolicy',
    examples: [
      {
        auto_redispatch: true,
        max_fee_increase_aoa: 50_000,
        max_redispatches: 2,
        assign_timeout_minutes: 20,
        preferred_company_ids: [],
        max_delivery_attempts: 2,
      },
    ],
  });
export type DispatchPolicy = z.infer<typeof DispatchPolicy>;

/** A PUT changes the fields it names; the others keep their values. */
export const DispatchPolicyChange = DispatchPolicy.partial()
  .strict()
  .meta({
    id: 'DispatchPolicyChange',
    examples: [{ auto_redispatch: true, max_fee_increase_aoa: 50_000 }],
  });

export const DEFAULT_DISPATCH_POLICY: DispatchPolicy = {
  auto_redispatch: false,
  max_fee_increase_aoa: 0,
  max_redispatches: 2,
  assign_timeout_minutes: 20,
  preferred_company_ids: [],
  max_delivery_attempts: DEFAULT_MAX_DELIVERY_ATTEMPTS,
};

/**
 * What a delivery workflow gets of the policy: nothing when automatic failover is off (design.md's behaviour).
 * `minuteMs`: the length of one of assign_timeout_minutes (ASSIGN_TIMEOUT_UNIT_MS; tests shorten it).
 */
export function redispatchPolicyFor(policy: DispatchPolicy, minuteMs = 60_000): RedispatchPolicy | null {
  if (!policy.auto_redispatch) return null;
  return {
    maxFeeIncreaseAoa: policy.max_fee_increase_aoa,
    maxRedispatches: policy.max_redispatches,
    assignTimeoutMs: policy.assign_timeout_minutes * minuteMs,
    preferredCompanyIds: policy.preferred_company_ids,
  };
}
