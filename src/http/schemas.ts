// Schemas every surface shares: timestamps, URIs, pagination, problem details, ids and idempotency headers. A domain's
// own schemas live in its folder (src/<domain>/schemas.ts).
import { z } from 'zod';
import { EXAMPLE_PAGINATION } from './examples.js';
import { ERROR_CODES, FIELD_ERROR_CODES } from './problem.js';
import { STATUSES } from '../../shared/deliveries/vocabulary.js';

/** A time in a response: an ISO 8601 string in UTC (`toISOString()`), documented as `format: date-time`. */
export const Timestamp = z.string().meta({ format: 'date-time' });
/** The earliest and the latest instant a date-time in a request may name (UTC): 1970-01-01 .. 9999-12-31. */
export const EARLIEST_DATE_MS = Date.UTC(1970, 0, 1);
export const LATEST_DATE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/**
 * A date-time in a request: ISO 8601 with an offset (`Z` or `+01:00`) whose UTC instant lies within
 * 1970-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z; outside it, 422 with code `out_of_range`. Every row a read
 * serialises stays in that range (migrations/1700000010030_date-range.sql backs it in the database).
 */
const isoDateTime = z.iso.datetime({ offset: true });
export const DateTimeInput = isoDateTime.superRefine((value, ctx) => {
  if (!isoDateTime.safeParse(value).success) return; // invalid_format, reported once by the format check
  const at = Date.parse(value);
  if (!(at >= EARLIEST_DATE_MS && at <= LATEST_DATE_MS)) {
    ctx.addIssue({
      code: 'custom',
      params: { code: 'out_of_range' },
      message: 'outside 1970-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z (UTC)',
    });
  }
});
/** A time computed from a request's times (an SLA deadline), kept within the range a date-time input may name. */
export const clampDate = (ms: number): Date => new Date(Math.min(Math.max(ms, EARLIEST_DATE_MS), LATEST_DATE_MS));
/** An absolute URL in a response, documented as `format: uri`. */
export const Uri = z.string().meta({ format: 'uri' });

/** The `limit` and `offset` query parameters of every list route; a route's own filters `.extend()` it. */
export const PaginationQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .transform((v) => Math.min(v, 100))
    .describe('1..100, default 50; larger values are clamped to 100'),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

export const FieldErrorSchema = z
  .object({
    pointer: z.string().optional().describe('JSON Pointer into the request body, e.g. `/parcel/weight_grams`'),
    parameter: z.string().optional().describe('the query, path or header parameter at fault'),
    code: z
      .enum(FIELD_ERROR_CODES)
      .describe(
        'what is wrong with the field: required, invalid_type, too_small, too_large, invalid_format, invalid_enum, not_allowed, invalid, or a specific code',
      ),
    detail: z.string(),
  })
  .meta({ id: 'FieldError' });

export const Problem = z
  .object({
    type: Uri.describe('{base_url}/errors/<code>'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    error: z.enum(ERROR_CODES).nullable().optional().describe('machine-readable code; `type` ends with it'),
    errors: z.array(FieldErrorSchema).nullable().optional().describe('per-field details of a validation error'),
    current_status: z
      .enum(STATUSES)
      .optional()
      .describe(
        "with 409 delivery_transition_not_allowed (test helpers): the delivery's status, which does not allow the request",
      ),
  })
  .meta({ id: 'Problem' });

/** Problem responses for the given statuses, for a route's `response` schema. */
export function problems(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: PROBLEM_DESCRIPTIONS[s] ?? 'Error', content: { 'application/problem+json': { schema: Problem } } },
    ]),
  ) as Record<number, { description: string; content: { 'application/problem+json': { schema: typeof Problem } } }>;
}
const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  401: 'Missing or invalid key (on widget routes also: origin not allowed). error: unauthorized',
  403: 'Forbidden. error: courier_inactive (fleet events of a deactivated courier), forbidden (a role that does not allow it; users managed, or the shop profile changed, with a test key)',
  404: 'Not found. error: not_found',
  409: 'Conflict. error: delivery_not_cancellable, delivery_transition_not_allowed (with current_status), idempotency_request_in_progress',
  413: 'Body too large. error: payload_too_large',
  422: 'Validation error. error: validation_failed or a specific code',
  429: 'Rate limited. error: rate_limited',
  502: 'Every courier failed. error: upstream_unavailable',
  503: 'Service unavailable. error: no_courier_configured (quotes), cancellation_pending (cancel: retry after Retry-After), test_helper_pending',
};

/** `:id` in a route's path: the id of the caller's object the route is about. */
export const IdParam = z.object({ id: z.uuid() });

export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('Repeat-safe retries: the same key and body within 24 h return the first response.'),
});

/** The pagination block of every list response. */
export const Pagination = z
  .object({ limit: z.number().int(), offset: z.number().int(), has_more: z.boolean() })
  .meta({ id: 'Pagination', examples: [EXAMPLE_PAGINATION] });
