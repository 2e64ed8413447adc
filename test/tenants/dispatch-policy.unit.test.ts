// A tenant's dispatch policy (src/tenants/dispatch-policy.ts): its bounds, and what a delivery's workflow gets of it.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DISPATCH_POLICY,
  DispatchPolicy,
  DispatchPolicyChange,
  redispatchPolicyFor,
} from '../../src/tenants/dispatch-policy.js';

describe('the dispatch policy', () => {
  it('the default is valid and off: a delivery gets no redispatch policy', () => {
    expect(DispatchPolicy.parse(DEFAULT_DISPATCH_POLICY)).toEqual(DEFAULT_DISPATCH_POLICY);
    expect(redispatchPolicyFor(DEFAULT_DISPATCH_POLICY)).toBeNull();
  });

  it('on: the limits in the workflow’s terms, minutes as milliseconds', () => {
    const policy = { ...DEFAULT_DISPATCH_POLICY, auto_redispatch: true, max_fee_increase_aoa: 50_000 };
    expect(redispatchPolicyFor(policy)).toEqual({
      maxFeeIncreaseAoa: 50_000,
      maxRedispatches: 2,
      assignTimeoutMs: 20 * 60_000,
      preferredCompanyIds: [],
    });
    expect(redispatchPolicyFor(policy, 10)?.assignTimeoutMs).toBe(200);
  });

  it('bounds: integer centavos, 0..10 redispatches, 1..1440 minutes, at most 20 preferred uuids; changes are strict', () => {
    const ok = (change: Record<string, unknown>) =>
      DispatchPolicy.safeParse({ ...DEFAULT_DISPATCH_POLICY, ...change }).success;
    expect(ok({ max_fee_increase_aoa: 0.5 })).toBe(false);
    expect(ok({ max_fee_increase_aoa: -1 })).toBe(false);
    expect(ok({ max_redispatches: 11 })).toBe(false);
    expect(ok({ assign_timeout_minutes: 0 })).toBe(false);
    expect(ok({ assign_timeout_minutes: 1440 })).toBe(true);
    expect(ok({ preferred_company_ids: ['acme'] })).toBe(false);
    expect(ok({ preferred_company_ids: Array(21).fill('0b6f4c1e-7a6e-4c31-9d2a-2f1c1f0e9a11') })).toBe(false);
    expect(DispatchPolicyChange.safeParse({ auto_redispatch: true }).success).toBe(true);
    expect(DispatchPolicyChange.safeParse({ auto_redispach: true }).success).toBe(false);
  });
});
