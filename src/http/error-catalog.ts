// What every `error` code means and what to do about it: the page its `type` URI resolves to (GET /errors/<code>,
// src/pages/error-routes.ts), the problem examples of the OpenAPI document (src/http/plugins/openapi.ts), and the table of
// docs/errors.md, which test/http/problem.unit.test.ts holds to this text. Text in backticks is code.
import type { ErrorCode } from './problem.js';
import { RECOVERY_ERRORS } from './error-catalog-recovery.js';
import { COD_ERRORS } from './error-catalog-cod.js';
import { SERVER_ERRORS } from './error-catalog-server.js';

export interface ErrorInfo {
  status: number;
  /** What happened, in a few words. */
  meaning: string;
  /** What the caller does about it. */
  todo: string;
  /** A `detail` the API answers with, for the OpenAPI examples. */
  example: string;
  /** The operations (operationId) that answer with it; absent: every operation documenting its status. */
  only?: string[];
  /** Only operations that take an `Idempotency-Key` header answer with it. */
  idempotent?: true;
}

const CREATE_DELIVERY = ['createDelivery', 'createWidgetDelivery'];
const TEST_HELPERS = ['advanceTestDelivery', 'stallTestDelivery', 'expireTestDeliveryPaymentWindow'];

export const ERROR_CATALOG = {
  invalid_json: {
    status: 400,
    meaning: 'the body is not valid JSON, or empty with `Content-Type: application/json`',
    todo: 'send a JSON body',
    example: 'The request body is not valid JSON.',
  },
  invalid_content_length: {
    status: 400,
    meaning: '`Content-Length` does not match the body',
    todo: 'fix the HTTP client',
    example: 'The Content-Length header does not match the body.',
  },
  invalid_url: {
    status: 400,
    meaning: 'the request path is not a valid URL (bad percent-encoding)',
    todo: 'encode the path',
    example: 'The request path is not a valid URL (bad percent-encoding).',
  },
  bad_request: {
    status: 400,
    meaning:
      'the request could not be handled as sent (malformed HTTP, for one); another 4xx status than 400 when the HTTP layer chose one',
    todo: 'check the request against the reference',
    example: 'The request could not be parsed as HTTP.',
  },
  unauthorized: {
    status: 401,
    meaning:
      'missing, malformed, unknown or revoked key, or a key of the other kind; on widget routes also an `Origin` the key does not allow; on fleet events a bad signature',
    todo: 'send `Authorization: Bearer <key>` with the whole key as issued (`sk_live_` or `pk_live_`, `sk_test_` or `pk_test_` in test mode, and 32 letters and digits); check the allowed origins',
    example:
      'The API key is malformed: a secret key is sk_live_ followed by 32 letters and digits (sk_test_ in test mode). Copy the whole key as it was issued.',
  },
  invalid_credentials: {
    status: 401,
    meaning: 'dashboard sign-in: wrong email or password (or no password set yet)',
    todo: 'check both; after 5 failures in 15 minutes sign-in for the email is locked (`sign_in_locked`)',
    example: 'Wrong email or password.',
    only: [],
  },
  courier_inactive: {
    status: 403,
    meaning: 'fleet events (or remittances) of a deactivated courier company',
    todo: 'none: the company is switched off',
    example: 'This courier company is deactivated; its fleet events are refused.',
    only: ['receiveFleetEvent', 'reportFleetRemittance'],
  },
  forbidden: {
    status: 403,
    meaning:
      'the dashboard user’s role does not allow this (viewers read; developers change deliveries, webhooks and test keys; owners also users, live keys and the shop profile), or the user list read, or the shop profile changed, with a test key',
    todo: 'ask an owner of the account; list users and change the shop profile with a live secret key',
    example: 'Your role (developer) cannot do this; it takes an owner.',
    only: [
      'listUsers',
      'createUser',
      'updateUser',
      'deleteUser',
      'createUserPasswordLink',
      'createApiKey',
      'updateApiKey',
      'revokeApiKey',
      'updateShopProfile',
    ],
  },
  csrf_token_invalid: {
    status: 403,
    meaning: 'a dashboard session used from another site, or a change without the session’s CSRF token',
    todo: 'reload the dashboard; use a secret key from servers',
    example:
      'A change made with a dashboard session must carry the session’s CSRF token in x-csrf-token; reload the dashboard.',
    only: [],
  },
  session_required: {
    status: 403,
    meaning:
      'a secret key asked to invite, change or remove a dashboard user, send a password link, or create, change or revoke an API key: those writes take a dashboard session, so a leaked key cannot outlive its rotation',
    todo: 'do it from the dashboard (an owner for users and live keys; a developer may manage test keys in test mode); secret keys may still list users and keys',
    example:
      'Dashboard users and API keys are managed from a dashboard session only, not with a secret key; use the dashboard.',
    only: [
      'createUser',
      'updateUser',
      'deleteUser',
      'createUserPasswordLink',
      'createApiKey',
      'updateApiKey',
      'revokeApiKey',
    ],
  },
  not_found: {
    status: 404,
    meaning:
      'no such route, or no such resource for this tenant and key mode (a malformed id too; a test object with a live key, a live one with a test key; a test helper with a live key)',
    todo: 'check the id, and that the key is of the mode the object was made in',
    example: 'Delivery not found.',
  },
  delivery_not_cancellable: {
    status: 409,
    meaning: 'cancel from a state other than `awaiting_payment`, `pending`, `assigned`',
    todo: 'none: the delivery moved on',
    example: 'A delivery in status in_transit cannot be cancelled (only awaiting_payment, pending or assigned).',
    only: ['cancelDelivery'],
  },
  delivery_not_awaiting_payment: {
    status: 409,
    meaning: 'payment confirmation of a delivery not in `awaiting_payment`',
    todo: 'none',
    example: 'The delivery is pending, not awaiting payment.',
    only: ['confirmDeliveryPayment'],
  },
  return_not_allowed: {
    status: 409,
    meaning:
      'a return to sender asked for a delivery that is not `failed`, already has a return, or is itself a return',
    todo: 'none: read the delivery (`return_delivery_id` names its return)',
    example: 'The delivery is in_transit: only a failed delivery returns to the sender.',
    only: ['returnDelivery'],
  },
  delivery_transition_not_allowed: {
    status: 409,
    meaning:
      "test helpers: the test delivery's status does not allow the step asked for; `current_status` says the status",
    todo: 'take a step the status allows (docs/test-mode.md), or read the delivery again',
    example:
      'A test delivery in status pending cannot advance to delivered (from in_transit or out_for_delivery only).',
    only: TEST_HELPERS,
  },
  idempotency_request_in_progress: {
    status: 409,
    meaning: 'a request with the same `Idempotency-Key` is still running',
    todo: 'retry shortly with the same key',
    example: 'A request with this Idempotency-Key is in progress; retry shortly.',
    idempotent: true,
  },
  webhook_endpoint_disabled: {
    status: 409,
    meaning: 'replay to a disabled endpoint',
    todo: 'enable it (`PATCH status: "enabled"`) first',
    example: 'The endpoint is disabled; enable it (PATCH status "enabled") before replaying.',
    only: ['replayWebhookEndpointMessages'],
  },
  replay_in_progress: {
    status: 409,
    meaning: "a replay to this endpoint is still running (its messages' retries included): one at a time per endpoint",
    todo: 'wait until it has finished (the attempt log shows it), then replay again',
    example: 'A replay to this endpoint is still running; retry when it has finished.',
    only: ['replayWebhookEndpointMessages'],
  },
  email_taken: {
    status: 409,
    meaning: 'the email is already a user of this account (users of other merchants do not count)',
    todo: 'change that user’s role instead, or remove it first',
    example: 'ana@loja.ao already has a dashboard account in this team.',
    only: ['createUser'],
  },
  last_owner: {
    status: 409,
    meaning: 'removing or demoting the account’s only owner',
    todo: 'make another user an owner first',
    example: 'This is the account’s only owner; make another user an owner first.',
    only: ['updateUser', 'deleteUser'],
  },
  api_key_revoked: {
    status: 409,
    meaning: 'changing a revoked API key',
    todo: 'none: create a new key',
    example: 'This key is revoked; create a new one.',
    only: ['updateApiKey'],
  },
  payload_too_large: {
    status: 413,
    meaning: 'body above the limit (1 MiB by default)',
    todo: 'send less',
    example: 'The request body is larger than the API accepts.',
  },
  unsupported_media_type: {
    status: 415,
    meaning: 'a body that is not `application/json`',
    todo: 'send JSON',
    example: 'Send the request body as application/json.',
  },
  validation_failed: {
    status: 422,
    meaning: 'the body, a query parameter or a header is invalid: see `errors[]`',
    todo: 'fix the fields named in `errors[]`',
    example: 'parcel.weight_grams: Too small: expected number to be >0.',
  },
  quote_id_required: {
    status: 422,
    meaning: 'delivery creation without `quote_id`',
    todo: 'create a quote first (`POST /v1/quotes`)',
    example: 'quote_id is required: create a quote with POST /v1/quotes first.',
    only: CREATE_DELIVERY,
  },
  quote_not_found: {
    status: 422,
    meaning: 'no quote with this `quote_id` for this tenant',
    todo: 'request a new quote',
    example: 'No quote with this quote_id.',
    only: CREATE_DELIVERY,
  },
  quote_expired: {
    status: 422,
    meaning: 'the quote is past its `valid_until`',
    todo: 'request a new quote',
    example: 'This quote has expired. Request a new quote and create the delivery with it.',
    only: CREATE_DELIVERY,
  },
  quote_already_used: {
    status: 422,
    meaning: 'the quote already created a delivery',
    todo: 'request a new quote',
    example: 'This quote was already used to create a delivery. Request a new quote.',
    only: CREATE_DELIVERY,
  },
  quote_company_mismatch: {
    status: 422,
    meaning: "`company_id` differs from the quote's company",
    todo: "leave `company_id` out or send the quote's",
    example: 'company_id differs from the company of the quote.',
    only: CREATE_DELIVERY,
  },
  quote_payload_mismatch: {
    status: 422,
    meaning:
      'origin, destination or parcel differs from the quoted one; `errors[]` points at each part that differs (`/origin`, `/destination`, `/parcel`)',
    todo: 'send them exactly as quoted, or quote again',
    example: 'parcel differs from the quoted ones. Send them exactly as quoted, or request a new quote.',
    only: CREATE_DELIVERY,
  },
  courier_fee_aoa_not_accepted: {
    status: 422,
    meaning: 'the body carries `courier_fee_aoa`',
    todo: 'leave it out: the quote sets the fee',
    example: 'The courier fee is decided by the quote; do not send courier_fee_aoa.',
    only: CREATE_DELIVERY,
  },
  payment_method_not_allowed: {
    status: 422,
    meaning: 'widget: a payment method the publishable key does not allow',
    todo: "offer only the key's methods",
    example: 'payment_method cod is not allowed for this publishable key (allowed: prepaid, bank_transfer).',
    only: ['createWidgetDelivery'],
  },
  idempotency_key_reused: {
    status: 422,
    meaning: 'the `Idempotency-Key` was used with another body (or for another delivery) within 24 h',
    todo: 'use a new key for a new request',
    example: 'This Idempotency-Key was used with a different request body. Use a new key for a new request.',
    idempotent: true,
  },
  cancellation_rejected: {
    status: 422,
    meaning: 'the state machine rejected the cancellation (state changed meanwhile, or the courier refused)',
    todo: 'read the delivery again',
    example: 'The cancellation was rejected: the courier refused to cancel the job.',
    only: ['cancelDelivery'],
  },
  payment_confirmation_rejected: {
    status: 422,
    meaning: 'the delivery stopped awaiting payment meanwhile',
    todo: 'read the delivery again',
    example: 'The payment confirmation was rejected: the delivery is no longer awaiting payment.',
    only: ['confirmDeliveryPayment'],
  },
  delivery_pin_mismatch: {
    status: 422,
    meaning:
      "test helpers: `advance` to `delivered` of a delivery whose courier requires a PIN, without its `delivery_pin`; recorded as a courier's wrong PIN would be",
    todo: "send the delivery's `delivery_pin` as `pin`",
    example:
      "The PIN does not match the delivery_pin: the delivered event was recorded as ignored (pin_mismatch), as a courier's would be.",
    only: ['advanceTestDelivery'],
  },
  message_not_found: {
    status: 422,
    meaning: 'replay of a `message_id` this tenant does not have',
    todo: 'check the webhook-id',
    example: 'No message msg_6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f for this tenant.',
    only: ['replayWebhookEndpointMessages'],
  },
  replay_range_too_large: {
    status: 422,
    meaning: 'more than 1000 messages in the replay range',
    todo: 'replay a narrower range',
    example: 'More than 1000 messages in this range; replay a narrower one.',
    only: ['replayWebhookEndpointMessages'],
  },
  webhook_endpoint_limit_reached: {
    status: 422,
    meaning: 'already 20 webhook endpoints',
    todo: 'delete one first',
    example: 'A tenant can register at most 20 webhook endpoints; delete one first.',
    only: ['createWebhookEndpoint'],
  },
  password_link_invalid: {
    status: 422,
    meaning: 'a set-password link that is unknown, already used or expired',
    todo: 'ask an owner for a new link (`POST /v1/users/{id}/password_link`, or `admin user link`)',
    example: 'This set-password link is unknown, already used or expired; ask an owner of your account for a new one.',
    only: [],
  },
  api_key_limit_reached: {
    status: 422,
    meaning: 'already 50 active API keys in this mode',
    todo: 'revoke one first',
    example: 'At most 50 active API keys per mode; revoke one first.',
    only: ['createApiKey'],
  },
  rate_limited: {
    status: 429,
    meaning:
      'too many requests for this key (or address), or more than 10 replays to one webhook endpoint within an hour',
    todo: 'wait `Retry-After` seconds',
    example: 'Rate limit of 6000 requests per minute exceeded; retry after 42 s.',
  },
  sign_in_locked: {
    status: 429,
    meaning: 'dashboard sign-in locked: 5 failures for the email, or 20 from the address, within 15 minutes',
    todo: 'wait `Retry-After` seconds; an owner can send a new set-password link',
    example: 'Too many failed sign-ins for this email: sign-in is locked for up to 15 minutes.',
    only: [],
  },
  headers_too_large: {
    status: 431,
    meaning: 'request headers too large',
    todo: 'send fewer or smaller headers',
    example: 'The request headers are too large.',
  },
  upstream_unavailable: {
    status: 502,
    meaning: 'quotes: every courier company failed or timed out',
    todo: 'retry shortly',
    example: 'No courier company answered in time. Retry shortly.',
  },
  no_courier_configured: {
    status: 503,
    meaning: 'quotes: no courier company is linked to the account',
    todo: 'link one first',
    example: 'No courier company is configured for this account. Link at least one courier company first.',
    only: ['createQuotes', 'createWidgetQuotes'],
  },
  cancellation_pending: {
    status: 503,
    meaning: 'the cancellation could not be confirmed within 15 s; it may still take effect',
    todo: 'retry after `Retry-After` (safe) or read the delivery',
    example:
      'The cancellation could not be confirmed in time and may still take effect. Check the delivery in a moment, or retry: a retry is safe.',
    only: ['cancelDelivery'],
  },
  test_helper_pending: {
    status: 503,
    meaning: "test helpers: the delivery's workflow did not record the step within 10 s; it may still take effect",
    todo: 'read the delivery in a moment',
    example:
      "The step was passed to the delivery's workflow but not recorded within 10 s; it may still take effect. Read the delivery in a moment.",
    only: TEST_HELPERS,
  },
  ...SERVER_ERRORS,
  ...RECOVERY_ERRORS,
  ...COD_ERRORS,
} as const satisfies Record<ErrorCode, ErrorInfo>;
