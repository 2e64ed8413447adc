// The error codes of the server's own state rather than the request's (a bug, a dependency's outage, a busy or
// starting server), part of ERROR_CATALOG (src/http/error-catalog.ts), which spreads them in: the same page, OpenAPI
// examples and docs/errors.md row.
import type { ErrorInfo } from './error-catalog.js';

export const SERVER_ERRORS = {
  internal_error: {
    status: 500,
    meaning: 'a fault on our side',
    todo: 'retry later; quote the `x-request-id` to support',
    example: 'Something went wrong on our side. Retry later; if it persists, contact support with the x-request-id.',
  },
  service_unavailable: {
    status: 503,
    meaning:
      'the database or the workflow engine did not answer (a restart, a network fault): the request may not have taken effect',
    todo: 'retry after `Retry-After` seconds; a creation with the same `Idempotency-Key` is safe to retry',
    example:
      'A service this request needs did not answer. Retry in a few seconds; a request with the same Idempotency-Key is safe to repeat.',
    // Any route may answer it; the OpenAPI document lists it under no operation (as password_check_busy).
    only: [],
  },
  password_check_busy: {
    status: 503,
    meaning: 'dashboard sign-in or set-password: too many passwords are being checked at once on this server',
    todo: 'wait `Retry-After` seconds and try again (nothing was counted nor changed)',
    example: 'Too many passwords are being checked right now; try again in 2 seconds.',
    only: [],
  },
  not_ready: {
    status: 503,
    meaning: '`GET /readyz`: Postgres or Temporal unreachable',
    todo: 'operators: see docs/operations.md',
    example: 'Not ready: postgres ok, temporal unavailable.',
    only: ['readiness'],
  },
} as const satisfies Record<string, ErrorInfo>;
