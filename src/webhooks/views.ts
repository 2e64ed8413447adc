// The shapes webhook endpoints and delivery attempts leave the API in (schemas.ts describes them).
import { FAILING_AFTER_MS, type AttemptRow, type EndpointRow } from './repository.js';

/** healthy: attempts succeed (or have failed for less than 24 h); failing: all have failed for 24 h; disabled: nothing is sent. */
type EndpointHealth = 'healthy' | 'failing' | 'disabled';

function endpointHealth(row: Pick<EndpointRow, 'status' | 'failing_since'>, now = Date.now()): EndpointHealth {
  if (row.status !== 'enabled') return 'disabled';
  return row.failing_since && now - row.failing_since.getTime() >= FAILING_AFTER_MS ? 'failing' : 'healthy';
}

export function toEndpoint(row: EndpointRow) {
  const rotating =
    row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > Date.now();
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    status: row.status,
    disabled_reason: row.disabled_reason,
    health: endpointHealth(row),
    failing_since: row.failing_since ? row.failing_since.toISOString() : null,
    secret_rotated_until: rotating ? row.previous_secret_expires_at!.toISOString() : null,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
  };
}

export const toEndpointWithSecret = (row: EndpointRow) => ({ ...toEndpoint(row), secret: row.secret });

export function toAttempt(row: AttemptRow) {
  return {
    id: row.id,
    message_id: row.message_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempt,
    status: row.status,
    status_code: row.status_code,
    latency_ms: row.latency_ms,
    error: row.error,
    trigger: row.trigger,
    attempted_at: row.attempted_at.toISOString(),
  };
}
