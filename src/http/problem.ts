// RFC 9457 problem details. Every 4xx/5xx the API sends is one of these.

/**
 * Every `error` code the API answers with: the Problem schema's enum in the OpenAPI document, and the table of
 * docs/errors.md (status, meaning, what to do). A new code goes here first; the compiler then accepts it.
 */
export const ERROR_CODES = [
  // 400
  'invalid_json',
  'invalid_content_length',
  'invalid_url',
  'bad_request',
  // 401, 403, 404
  'unauthorized',
  'invalid_credentials',
  'courier_inactive',
  'forbidden',
  'csrf_token_invalid',
  'session_required',
  'not_found',
  // 409
  'delivery_not_cancellable',
  'delivery_not_awaiting_payment',
  'delivery_transition_not_allowed',
  'return_not_allowed',
  'delivery_not_stalled',
  'recovery_not_allowed',
  'no_company_available',
  'idempotency_request_in_progress',
  'webhook_endpoint_disabled',
  'replay_in_progress',
  'email_taken',
  'last_owner',
  'api_key_revoked',
  // 413, 415
  'payload_too_large',
  'unsupported_media_type',
  // 422
  'validation_failed',
  'quote_id_required',
  'quote_not_found',
  'quote_expired',
  'quote_already_used',
  'quote_company_mismatch',
  'quote_payload_mismatch',
  'courier_fee_aoa_not_accepted',
  'payment_method_not_allowed',
  'idempotency_key_reused',
  'cancellation_rejected',
  'payment_confirmation_rejected',
  'delivery_pin_mismatch',
  'message_not_found',
  'replay_range_too_large',
  'webhook_endpoint_limit_reached',
  'password_link_invalid',
  'api_key_limit_reached',
  'company_not_linked',
  // 429, 431
  'rate_limited',
  'sign_in_locked',
  'headers_too_large',
  // 5xx
  'internal_error',
  'service_unavailable',
  'upstream_unavailable',
  'no_courier_configured',
  'cancellation_pending',
  'test_helper_pending',
  'recovery_pending',
  'password_check_busy',
  'not_ready',
  'remittance_mixed_tenants',
  'remittance_amount_mismatch',
  'already_remitted',
  'remittance_ref_reused',
  'remittance_not_reported',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Every `errors[].code`: what is wrong with one field or parameter. The generic ones first (validation issues
 * are mapped onto them in src/http/plugins/errors.ts, never a library's own code), then the specific ones; a field
 * error of a specific `error` repeats that code (e.g. `quote_expired` at `/quote_id`).
 */
export const FIELD_ERROR_CODES = [
  'required',
  'invalid_type',
  'too_small',
  'too_large',
  'invalid_format',
  'out_of_range',
  'invalid_enum',
  'not_allowed',
  'unknown_field',
  'invalid',
  'invalid_string',
  'too_deep',
  'unsupported_scheme',
  'private_address',
  'cash_collect_aoa_mismatch',
  'quote_payload_mismatch',
  'invalid_url',
  'quote_id_required',
  'quote_not_found',
  'quote_expired',
  'quote_already_used',
  'quote_company_mismatch',
  'courier_fee_aoa_not_accepted',
  'payment_method_not_allowed',
  'message_not_found',
  'delivery_pin_mismatch',
  'company_not_linked',
  'remittance_amount_mismatch',
  'already_remitted',
  'remittance_mixed_tenants',
  'not_collected',
  'unknown_delivery',
  'duplicate',
] as const;
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

export interface FieldError {
  /** JSON Pointer into the request body, e.g. `/parcel/weight_grams`. */
  pointer?: string;
  /** Name of the query or path parameter at fault. */
  parameter?: string;
  code: FieldErrorCode;
  detail: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Validation error',
  429: 'Too many requests',
  431: 'Request header fields too large',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

export const titleFor = (status: number): string => TITLES[status] ?? 'Error';

/** Members of a problem beyond RFC 9457's (the Problem schema lists them). */
export interface ProblemExtensions {
  /** With 409 delivery_transition_not_allowed: the delivery's status, which does not allow the request. */
  current_status?: string;
}

/** An error the API answers with on purpose: status, machine-readable code, human detail. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    readonly extensions?: ProblemExtensions,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export const notFound = (what = 'Delivery') => new ApiError(404, 'not_found', `${what} not found.`);
export const unauthorized = (detail = 'Missing or invalid API key.') => new ApiError(401, 'unauthorized', detail);
export const validationFailed = (errors: FieldError[], detail?: string) =>
  new ApiError(422, 'validation_failed', detail ?? errors.map((e) => e.detail).join(' '), errors);

export interface ProblemBody extends ProblemExtensions {
  type: string;
  title: string;
  status: number;
  detail: string;
  error: ErrorCode;
  errors?: FieldError[];
  instance?: string;
}

export function problemBody(
  baseUrl: string,
  status: number,
  code: ErrorCode,
  detail: string,
  errors?: FieldError[],
  extensions?: ProblemExtensions,
): ProblemBody {
  const body: ProblemBody = {
    type: `${baseUrl}/errors/${code}`,
    title: status === 422 && code !== 'validation_failed' ? titleFor(422) : titleFor(status),
    status,
    detail,
    error: code,
  };
  if (errors && errors.length > 0) body.errors = errors;
  return { ...body, ...extensions };
}
