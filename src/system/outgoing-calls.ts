// Every call the service makes to another machine, with its time budget, its retries and what the caller sees when
// they run out: the table of docs/operations.md ("Outgoing calls: timeouts and retries") is this module's output,
// built from the constants the code itself uses, and test/system/outgoing-calls.test.ts holds the document to it.
import { loadConfig, type Config } from '../platform/config.js';
import { DEFAULT_COURIER_TIMEOUT_MS } from '../couriers/adapters/http.js';
import { DB_CONNECT_TIMEOUT_MS, DB_QUERY_TIMEOUT_MS } from '../platform/db.js';
import { REDIS_COMMAND_TIMEOUT_MS, REDIS_CONNECT_TIMEOUT_MS } from '../http/plugins/rate-limit.js';
import { CANCEL_WAIT_MS } from '../deliveries/cancel.js';
import { TEMPORAL_CONNECT_TIMEOUT_MS, WORKFLOW_START_DEADLINE_MS } from '../platform/temporal.js';
import { WEBHOOK_CONNECT_MAX_MS } from '../webhooks/sender.js';
import {
  CANCEL_ATTEMPT_MS,
  CANCEL_CALL_MAX_MS,
  CANCEL_MAX_ATTEMPTS,
  CANCEL_TOTAL_MS,
  BOOKING_FIRST_ATTEMPT_MS,
  BOOKING_FIRST_CALL_MAX_MS,
  DISPATCH_ATTEMPT_MS,
  DISPATCH_MAX_INTERVAL_MS,
  RECORD_ATTEMPT_MS,
  RECORD_MAX_INTERVAL_MS,
  RELEASE_ATTEMPT_MS,
  RELEASE_INITIAL_INTERVAL_MS,
  RELEASE_MAX_INTERVAL_MS,
  WEBHOOK_ATTEMPT_MS,
} from '../../shared/timeouts.js';

/** 2000 -> "2 s", 500 -> "500 ms", 300000 -> "5 min", 3600000 -> "1 h", 86400000 -> "24 h". */
export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  return `${ms / 3_600_000} h`;
}

interface OutgoingCall {
  call: string;
  connect: string;
  answer: string;
  retries: string;
  runsOut: string;
}

/** The rows, from the code's constants and the configuration's defaults. */
export function outgoingCalls(): OutgoingCall[] {
  const config = loadConfig({});
  return [...courierCalls(config), ...otherCalls(config)];
}

/** The calls to courier companies. */
function courierCalls(config: Config): OutgoingCall[] {
  const courier = `the company's \`timeout_ms\` (default ${duration(DEFAULT_COURIER_TIMEOUT_MS)}), one limit for connect, headers and body`;
  return [
    {
      call: 'Courier quote `POST {endpoint}/quotes` (API; the worker for automatic failover)',
      connect: courier,
      answer: 'within the same limit',
      retries: 'none',
      runsOut: 'the company is left out of `data`; when every company failed, 502 `upstream_unavailable`',
    },
    {
      call: 'Courier booking `POST {endpoint}/bookings` (worker, dispatchDelivery)',
      connect: courier,
      answer:
        `within the same limit; one attempt at most ${duration(DISPATCH_ATTEMPT_MS)}. The first attempt runs in the ` +
        `delivery's workflow task: its call at most ${duration(BOOKING_FIRST_CALL_MAX_MS)} (the company's limit when ` +
        `shorter), the attempt at most ${duration(BOOKING_FIRST_ATTEMPT_MS)}`,
      retries:
        `\`DISPATCH_MAX_ATTEMPTS\` (${config.dispatchMaxAttempts}) attempts, ${duration(config.dispatchInitialIntervalMs)} ` +
        `(\`DISPATCH_INITIAL_INTERVAL_MS\`) doubling to at most ${duration(DISPATCH_MAX_INTERVAL_MS)} apart, every one with the ` +
        'same `Idempotency-Key`; a 4xx refusal is final',
      runsOut:
        '`stalled` with reason `dispatch_failed` (`courier_rejected` on a refusal), or another company with automatic failover',
    },
    {
      call: 'Courier cancellation a merchant waits on `DELETE {endpoint}/bookings/{ref}` (worker, the `cancel` update)',
      connect: `the company's \`timeout_ms\`, capped at ${duration(CANCEL_CALL_MAX_MS)}`,
      answer: `within the same limit; one attempt at most ${duration(CANCEL_ATTEMPT_MS)}`,
      retries: `${CANCEL_MAX_ATTEMPTS} attempts, ${duration(CANCEL_TOTAL_MS)} in all`,
      runsOut:
        'the delivery is cancelled all the same and the booking is released in the background (next row); ' +
        `\`DELETE /v1/deliveries/{id}\` waits at most ${duration(CANCEL_WAIT_MS)}, then 503 \`cancellation_pending\``,
    },
    {
      call: 'Booking release in the background `DELETE {endpoint}/bookings/{ref}` (worker, bookingReleaseWorkflow)',
      connect: "the company's `timeout_ms`",
      answer: `within the same limit; one attempt at most ${duration(RELEASE_ATTEMPT_MS)}`,
      retries:
        `${duration(RELEASE_INITIAL_INTERVAL_MS)} doubling to at most ${duration(RELEASE_MAX_INTERVAL_MS)} apart, for ` +
        `\`BOOKING_RELEASE_RETRY_MS\` (${duration(config.bookingReleaseRetryMs)})`,
      runsOut: '`delivery.booking_release_failed` on the delivery, for an operator (docs/operations.md)',
    },
    {
      call: "The recipient's answers `POST {endpoint}/bookings/{ref}/updates` (worker, courierUpdateWorkflow)",
      connect: "the company's `timeout_ms`",
      answer: `within the same limit; one attempt at most ${duration(RELEASE_ATTEMPT_MS)}`,
      retries:
        `${duration(RELEASE_INITIAL_INTERVAL_MS)} doubling to at most ${duration(RELEASE_MAX_INTERVAL_MS)} apart, for ` +
        `\`BOOKING_RELEASE_RETRY_MS\` (${duration(config.bookingReleaseRetryMs)}); a 4xx is final`,
      runsOut:
        'given up on; the answer stays on the delivery (`delivery.recipient_updated`, `recipient_answers`): ' +
        '[recipients](recipients.md#the-recipient-page)',
    },
  ];
}

/** Merchant webhooks, Postgres, Temporal and Redis. */
function otherCalls(config: Config): OutgoingCall[] {
  const schedule = config.webhookScheduleMs;
  return [
    {
      call: 'Merchant webhook `POST <endpoint url>` (worker, one activity per attempt)',
      connect: `${duration(Math.min(config.webhookTimeoutMs, WEBHOOK_CONNECT_MAX_MS))} (the smaller of \`WEBHOOK_TIMEOUT_MS\` and ${duration(WEBHOOK_CONNECT_MAX_MS)})`,
      answer: `\`WEBHOOK_TIMEOUT_MS\` (${duration(config.webhookTimeoutMs)}); the attempt at most ${duration(WEBHOOK_ATTEMPT_MS)} with its log writes`,
      retries:
        `\`WEBHOOK_SCHEDULE_MS\`: ${schedule.length} attempts (${schedule.map((ms) => (ms === 0 ? 'at once' : duration(ms))).join(', ')} after the previous), ` +
        'with jitter, `Retry-After` honoured',
      runsOut:
        'any answer but 2xx is retried; 410 disables the endpoint. Past the schedule the message is failed (its attempts are in ' +
        'the attempt log) and can be replayed; an endpoint failing for 24 h shows `health: "failing"`, for 5 days it is disabled',
    },
    {
      call: 'Postgres (API and worker, pg pool)',
      connect: `${duration(DB_CONNECT_TIMEOUT_MS)} for a connection (a new one, or a pooled one to come free); TCP keep-alive on`,
      answer: `${duration(DB_QUERY_TIMEOUT_MS)} per query`,
      retries:
        `API: none. Worker: each activity attempt at most ${duration(RECORD_ATTEMPT_MS)}, retried 1 s doubling to ` +
        `${duration(RECORD_MAX_INTERVAL_MS)} apart, without limit`,
      runsOut:
        'API: 503 `service_unavailable` with `Retry-After` for that request, and `GET /readyz` 503. Worker: the delivery waits, nothing is lost',
    },
    {
      call: 'Temporal frontend (API)',
      connect: `${duration(TEMPORAL_CONNECT_TIMEOUT_MS)} at start`,
      answer: `a delivery's workflow start ${duration(WORKFLOW_START_DEADLINE_MS)}; a cancellation ${duration(CANCEL_WAIT_MS)}`,
      retries: "the SDK's retries of transient gRPC errors, within those deadlines",
      runsOut:
        "creation: 201 with the committed delivery, and the worker's reconciler starts its workflow (every " +
        `\`RECONCILE_INTERVAL_MS\`, ${duration(config.reconcileIntervalMs)}); a cancellation: 503 \`cancellation_pending\`; ` +
        "any other call (a fleet event's signal, an update): 503 `service_unavailable` with `Retry-After`",
    },
    {
      call: 'Temporal frontend (worker)',
      connect: "the SDK's (Core reconnects with backoff)",
      answer: 'long polls; the activity limits above',
      retries: "the SDK's, without limit",
      runsOut:
        'workflow tasks and activities wait on the server; an activity cut off mid-way runs again after its timeout',
    },
    {
      call: 'Redis (API, shared rate-limit counters, when `REDIS_URL` is set)',
      connect: duration(REDIS_CONNECT_TIMEOUT_MS),
      answer: `${duration(REDIS_COMMAND_TIMEOUT_MS)} per command`,
      retries: 'none (no offline queue); reconnects every second at most',
      runsOut: "the request is counted in the process's memory instead (limits per replica) until Redis is back",
    },
  ];
}

/** The Markdown table of docs/operations.md. */
export function outgoingCallsTable(): string {
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    row(['call (who makes it)', 'connect', 'answer', 'retries', 'when they run out, the caller sees']),
    row(['---', '---', '---', '---', '---']),
    ...outgoingCalls().map((c) => row([c.call, c.connect, c.answer, c.retries, c.runsOut])),
  ].join('\n');
}
