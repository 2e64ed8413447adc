// The time budgets of the workflows' outgoing calls (activities that talk to couriers and merchants' webhook
// receivers), in one workflow-safe place: the workflows use them, and docs/operations.md's table of outgoing calls is
// generated from them with the API's own (src/system/outgoing-calls.ts), so the documentation cannot drift from the code.

/** Booking a courier (dispatchDelivery): one attempt's limit; the attempts and backoff come from the configuration. */
export const DISPATCH_ATTEMPT_MS = 15_000;
/**
 * The booking's first attempt runs in the workflow task that decided it (a local activity), its courier call capped at
 * this (the company's own timeout when shorter)...
 */
export const BOOKING_FIRST_CALL_MAX_MS = 3000;
/** ...and the attempt at most this long: the delivery hears no update (a cancellation) while it runs. */
export const BOOKING_FIRST_ATTEMPT_MS = 5000;
/** The longest wait between two booking attempts. */
export const DISPATCH_MAX_INTERVAL_MS = 60_000;

/** A cancellation the merchant waits on: each courier call at most this long (the company's own timeout is capped)... */
export const CANCEL_CALL_MAX_MS = 3000;
/** ...one attempt of the activity (the call plus its bookkeeping)... */
export const CANCEL_ATTEMPT_MS = 5000;
/** ...and every attempt together, at most 3 of them, 1 s then 2 s apart. */
export const CANCEL_TOTAL_MS = 10_000;
export const CANCEL_MAX_ATTEMPTS = 3;

/** Releasing a booking in the background (bookingReleaseWorkflow): one attempt, and the backoff between attempts. */
export const RELEASE_ATTEMPT_MS = 30_000;
export const RELEASE_INITIAL_INTERVAL_MS = 2000;
export const RELEASE_MAX_INTERVAL_MS = 5 * 60_000;

/** One merchant webhook attempt (the request, bounded by WEBHOOK_TIMEOUT_MS, plus the attempt log writes). */
export const WEBHOOK_ATTEMPT_MS = 60_000;

/** Postgres writes of the workflows (recordEvent & co.): one attempt, retried without limit, 1 s to 30 s apart. */
export const RECORD_ATTEMPT_MS = 10_000;
export const RECORD_MAX_INTERVAL_MS = 30_000;
