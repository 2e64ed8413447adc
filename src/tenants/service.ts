// Tenants: a new tenant is its row plus a live and a test pair of keys (through the keys service).
import { randomUUID } from 'node:crypto';
import type { Pool } from '../platform/db.js';
import { createKey } from '../keys/service.js';
import { insertTenant } from './repository.js';

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
