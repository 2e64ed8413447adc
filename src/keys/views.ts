// The shape an API key leaves the API in (the `ApiKey` schema of schemas.ts): never its hash or secret, like src/deliveries/views.ts.
import type { ApiKeyRow } from './repository.js';
import { DEFAULT_WIDGET_PAYMENT_METHODS } from './widget-policy.js';

/** A publishable key's payment rules as the widget applies them (the defaults when none were set); null for a secret key. */
function widgetRules(row: ApiKeyRow) {
  if (row.kind !== 'publishable') return { widget_payment_methods: null, widget_cod_amount_aoa: null };
  return {
    widget_payment_methods: row.widget_payment_methods ?? [...DEFAULT_WIDGET_PAYMENT_METHODS],
    widget_cod_amount_aoa: row.widget_cod_amount_aoa == null ? null : Number(row.widget_cod_amount_aoa),
  };
}

export function toApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    kind: row.kind,
    livemode: row.livemode,
    prefix: row.prefix,
    publishable_key: row.kind === 'publishable' ? row.publishable_key : null,
    allowed_origins: row.allowed_origins,
    ...widgetRules(row),
    status: row.revoked_at ? ('revoked' as const) : ('active' as const),
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}
