// Tenants: a new tenant is its row plus a live and a test pair of keys (through the keys service); the settings changed
// by the API (PUT /v1/settings/dispatch, PUT /v1/settings/shop) and the admin command line (`admin tenant dispatch`, `admin tenant settings`):
// the rules live here once, the SQL in ./repository.ts.
import { randomUUID } from 'node:crypto';
import { createKey } from '../keys/service.js';
import { canBook } from '../couriers/service.js';
import type { Pool } from '../platform/db.js';
import { ApiError, validationFailed, type FieldError } from '../http/problem.js';
import { isEmailAddress } from '../users/service.js';
import type { DispatchPolicy } from './dispatch-policy.js';
import {
  insertTenant,
  dispatchPolicyOf,
  saveDispatchPolicy,
  updateTenantPageSettings,
  type TenantPageSettings,
} from './repository.js';

/**
 * Changes the dispatch policy of one mode: the fields given, the others keep their values. Every preferred company
 * must be one the tenant can book in that mode (real couriers for live, simulated test couriers for test): 422
 * not_allowed otherwise, naming each refused one.
 */
export async function changeDispatchPolicy(
  pool: Pool,
  tenantId: string,
  livemode: boolean,
  change: Partial<DispatchPolicy>,
): Promise<DispatchPolicy> {
  const refused = [];
  for (const [i, companyId] of (change.preferred_company_ids ?? []).entries()) {
    if (!(await canBook(pool, tenantId, companyId, livemode))) {
      refused.push({
        pointer: `/preferred_company_ids/${i}`,
        code: 'not_allowed' as const,
        detail: `Company ${companyId} is not one this tenant can book.`,
      });
    }
  }
  if (refused.length) throw validationFailed(refused);
  const policy = { ...(await dispatchPolicyOf(pool, tenantId, livemode)), ...change };
  await saveDispatchPolicy(pool, tenantId, livemode, policy);
  return policy;
}

/** What each help contact of the tracking page must look like, and how the refusal names it. */
const PAGE_CHECKS: Partial<Record<keyof TenantPageSettings, [(value: string) => boolean, string]>> = {
  help_email: [isEmailAddress, 'an email address'],
  help_phone: [(v) => /^\+?[\d\s().-]{6,30}$/.test(v), 'a phone number'],
  help_url: [(v) => /^https?:\/\//i.test(v) && URL.canParse(v), 'an http(s) URL'],
};

/** What is wrong with the page settings given, one field error each (pointer `/<field>`); empty when all are fine. */
export function pageSettingsErrors(values: Partial<Record<keyof TenantPageSettings, string | null>>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [column, raw] of Object.entries(values) as [keyof TenantPageSettings, string | null | undefined][]) {
    const value = raw?.trim();
    const check = PAGE_CHECKS[column];
    if (value && check && !check[0](value))
      errors.push({ pointer: `/${column}`, code: 'invalid_format', detail: `"${raw}" is not ${check[1]}.` });
  }
  return errors;
}

/**
 * Sets what the recipients' tracking page shows of the shop (the admin command line and PUT /v1/settings/shop): each
 * value given is trimmed, an empty one or null clears the setting, an absent one stays. 422 naming every contact that
 * is not one; null for an unknown tenant.
 */
export async function changePageSettings(
  pool: Pool,
  tenantId: string,
  values: Partial<Record<keyof TenantPageSettings, string | null>>,
): Promise<(TenantPageSettings & { name: string }) | null> {
  const errors = pageSettingsErrors(values);
  if (errors.length) throw new ApiError(422, 'validation_failed', errors.map((e) => e.detail).join(' '), errors);
  const changes: Partial<TenantPageSettings> = {};
  for (const [column, raw] of Object.entries(values) as [keyof TenantPageSettings, string | null | undefined][]) {
    if (raw === undefined) continue;
    changes[column] = raw?.trim() || null;
  }
  return updateTenantPageSettings(pool, tenantId, changes);
}

/** A new tenant's keys: the live pair (`secret_key`, `publishable_key`) and the test pair (`test_...`). */
export interface CreatedTenant {
  tenant_id: string;
  secret_key: string;
  secret_key_id: string;
  publishable_key: string;
  publishable_key_id: string;
  test_secret_key: string;
  test_secret_key_id: string;
  test_publishable_key: string;
  test_publishable_key_id: string;
}

/** A tenant with a live and a test pair of keys; both publishable keys allow `allowedOrigins`. */
export async function createTenant(pool: Pool, name: string, allowedOrigins: string[] = []): Promise<CreatedTenant> {
  const tenantId = randomUUID();
  await insertTenant(pool, tenantId, name);
  const secret = await createKey(pool, tenantId, 'secret');
  const publishable = await createKey(pool, tenantId, 'publishable', allowedOrigins);
  const testSecret = await createKey(pool, tenantId, 'secret', [], 'test');
  const testPublishable = await createKey(pool, tenantId, 'publishable', allowedOrigins, 'test');
  return {
    tenant_id: tenantId,
    secret_key: secret.key,
    secret_key_id: secret.id,
    publishable_key: publishable.key,
    publishable_key_id: publishable.id,
    test_secret_key: testSecret.key,
    test_secret_key_id: testSecret.id,
    test_publishable_key: testPublishable.key,
    test_publishable_key_id: testPublishable.id,
  };
}
