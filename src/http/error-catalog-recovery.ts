// The error codes of POST /v1/deliveries/{id}/recover (docs/deliveries.md "Recovering a stalled delivery"), part of
// ERROR_CATALOG (src/http/error-catalog.ts), which spreads them in: the same page, OpenAPI examples and docs/errors.md row.
import type { ErrorInfo } from './error-catalog.js';

export const RECOVERY_ERRORS = {
  delivery_not_stalled: {
    status: 409,
    meaning: 'recover a delivery that is not `stalled` (see its `recovery`, null then)',
    todo: 'none: only a stalled delivery is recovered; read the delivery again',
    example: 'The delivery is in_transit, not stalled: there is nothing to recover.',
    only: ['recoverDelivery'],
  },
  recovery_not_allowed: {
    status: 409,
    meaning: '`cancel` of a delivery that stalled after pickup (its `recovery.actions` has no `cancel`)',
    todo: 'take one of the actions its `recovery.actions` lists (`redispatch`, `resume`, `mark_failed`)',
    example:
      'The delivery stalled in in_transit, after pickup: it cannot be cancelled (only before pickup); redispatch, resume or mark_failed it.',
    only: ['recoverDelivery'],
  },
  no_company_available: {
    status: 409,
    meaning:
      "`redispatch` without `company_id`: no other company quotes the delivery within its fee ceiling (the locked fee plus the dispatch policy's `max_fee_increase_aoa`)",
    todo: 'redispatch to a company of your choice (`company_id`), raise `max_fee_increase_aoa`, or resume, mark_failed or cancel it',
    example: 'No other company quotes this delivery within its fee ceiling (the locked fee plus max_fee_increase_aoa).',
    only: ['recoverDelivery'],
  },
  company_not_linked: {
    status: 422,
    meaning:
      "`redispatch` to a `company_id` that is not an active courier company linked to the account (in the key's mode)",
    todo: 'pick a company of `GET /v1/couriers`, or redispatch without `company_id`',
    example: 'company_id is not an active courier company linked to this account (in this mode).',
    only: ['recoverDelivery'],
  },
  recovery_pending: {
    status: 503,
    meaning: "recover: the delivery's workflow did not confirm the action within 30 s; it may still take effect",
    todo: 'read the delivery in a moment before retrying (`recovery` is null once it took effect)',
    example:
      'The recovery could not be confirmed in time and may still take effect. Read the delivery in a moment before retrying.',
    only: ['recoverDelivery'],
  },
} as const satisfies Record<string, ErrorInfo>;
