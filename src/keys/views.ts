// The shape an API key leaves the API in (the `ApiKey` schema of schemas.ts): never its hash or secret, like src/deliveries/views.ts.
import type { ApiKeyRow } from './repository.js';

export function toApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    kind: row.kind,
    livemode: row.livemode,
    prefix: row.prefix,
    allowed_origins: row.allowed_origins,
    status: row.revoked_at ? ('revoked' as const) : ('active' as const),
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}
