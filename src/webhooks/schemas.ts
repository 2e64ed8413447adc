// Request and response schemas of /v1/webhook_endpoints (OpenAPI through the zod type provider).
import { z } from 'zod';
import { DateTimeInput, PaginationQuery, Timestamp, Uri } from '../http/schemas.js';
import { EXAMPLE_CREATED_EVENT, EXAMPLE_WEBHOOK_ATTEMPT, EXAMPLE_WEBHOOK_ENDPOINT } from '../http/examples.js';
import { pageOf, withSecret } from '../http/schema-builders.js';
import { EVENT_TYPES } from '../../shared/deliveries/vocabulary.js';

const dateTime = DateTimeInput;

export const EventTypes = z
  .array(z.enum(EVENT_TYPES))
  .superRefine((list, ctx) => {
    if (list.length === 0)
      ctx.addIssue({
        code: 'custom',
        params: { code: 'too_small' },
        message: 'list at least one event type, or leave events out for every type',
      });
    else if (new Set(list).size !== list.length)
      ctx.addIssue({ code: 'custom', message: 'event types must not repeat' });
  })
  .describe(`Only these event types are sent; absent or null: every type. One of ${EVENT_TYPES.join(', ')}.`);

const Url = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .meta({ format: 'uri' })
  .describe(
    'http(s) URL the notifications are POSTed to. Loopback, private, link-local and other special-use addresses (and names resolving to them) are refused (422 private_address).',
  );
const Description = z.string().trim().max(500).describe('Free text for your own reference.');
/** The `secret` of a creation or rotation answer. */
const SECRET =
  '`whsec_` + base64: the signing secret. Shown only in this response; store it now. ' +
  'Absent from an Idempotency-Key replay (header `idempotent-replay-withheld: secret`): secrets are never cached.';

export const CreateEndpointBody = z
  .strictObject({
    url: Url,
    events: EventTypes.nullable().optional(),
    description: Description.nullable().optional(),
  })
  .meta({ examples: [{ url: EXAMPLE_WEBHOOK_ENDPOINT.url, description: EXAMPLE_WEBHOOK_ENDPOINT.description }] });

export const UpdateEndpointBody = z
  .strictObject({
    url: Url.optional(),
    events: EventTypes.nullable().optional(),
    description: Description.nullable().optional(),
    status: z
      .enum(['enabled', 'disabled'])
      .optional()
      .describe(
        'enabled: notifications are sent (re-enables an endpoint disabled after a 410 or 5 days of failures, and clears `failing_since`); disabled: none are.',
      ),
  })
  .meta({
    examples: [
      {
        events: ['delivery.assigned', 'delivery.delivered', 'delivery.failed', 'delivery.cancelled'],
        status: 'enabled',
      },
    ],
  });

export const WebhookEndpoint = z
  .object({
    id: z.uuid(),
    url: Uri,
    description: z.string().nullable(),
    events: z.array(z.enum(EVENT_TYPES)).nullable().describe('null: every event type'),
    status: z
      .enum(['enabled', 'disabled'])
      .describe(
        'disabled: nothing is sent (after a 410 Gone answer, after 5 days of failed attempts, or by the merchant)',
      ),
    disabled_reason: z
      .string()
      .nullable()
      .describe(
        'Why the endpoint is disabled: `failing` (every attempt failed for 5 days), or a sentence (a 410 Gone answer, or disabled by the merchant).',
      ),
    health: z
      .enum(['healthy', 'failing', 'disabled'])
      .meta({ examples: ['healthy', 'failing'] })
      .describe(
        'healthy: attempts succeed, or have failed for less than 24 h. failing: every attempt has failed for 24 h or more (since `failing_since`); after 5 days the endpoint is disabled with reason `failing`. disabled: `status` is disabled.',
      ),
    failing_since: Timestamp.nullable().describe(
      'When the failed attempts since the last successful one began; null when the last attempt succeeded.',
    ),
    secret_rotated_until: Timestamp.nullable().describe(
      'Until this time notifications also carry a signature made with the previous secret.',
    ),
    livemode: z
      .boolean()
      .describe(
        'false: registered with a test key; it receives the notifications of test deliveries only (live ones: live deliveries only).',
      ),
    created_at: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint', examples: [EXAMPLE_WEBHOOK_ENDPOINT] });

export const WebhookEndpointWithSecret = withSecret(WebhookEndpoint, 'WebhookEndpointWithSecret', SECRET, {
  ...EXAMPLE_WEBHOOK_ENDPOINT,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
});

export const WebhookAttempt = z
  .object({
    id: z.uuid(),
    message_id: z.string().describe('the webhook-id header: msg_<event id>'),
    event_id: z.uuid(),
    event_type: z.enum(EVENT_TYPES),
    attempt: z.number().int().describe("1-based within the schedule run (the event's own, or a replay's)"),
    status: z
      .enum(['succeeded', 'failed', 'exhausted'])
      .describe('exhausted: no retry is left for this message (no request was made in this row)'),
    status_code: z.number().int().nullable(),
    latency_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    trigger: z.enum(['event', 'replay']),
    attempted_at: Timestamp,
  })
  .meta({ id: 'WebhookAttempt', examples: [EXAMPLE_WEBHOOK_ATTEMPT] });

export const AttemptListQuery = PaginationQuery.extend({
  message_id: z.string().max(100).optional().describe('only the attempts of this message'),
  status: z.enum(['succeeded', 'failed', 'exhausted']).optional(),
});

export const ReplayBody = z
  .strictObject({
    message_id: z.string().min(1).max(100).optional().describe('one message (webhook-id) to resend'),
    since: dateTime
      .optional()
      .describe('with until: resend every message created in this range (inclusive) whose type the endpoint takes'),
    until: dateTime.optional().describe('default: now'),
  })
  .superRefine((body, ctx) => {
    if (body.message_id !== undefined && (body.since !== undefined || body.until !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        params: { code: 'not_allowed' },
        path: ['message_id'],
        message: 'send either message_id or a since/until range, not both',
      });
    } else if (body.message_id === undefined && body.since === undefined) {
      ctx.addIssue({
        code: 'custom',
        params: { code: 'required' },
        path: ['since'],
        message: 'send message_id, or since (and optionally until)',
      });
    }
    if (body.since && body.until && Date.parse(body.until) < Date.parse(body.since)) {
      ctx.addIssue({ code: 'custom', path: ['until'], message: 'until is before since' });
    }
  })
  .meta({
    examples: [
      { message_id: `msg_${EXAMPLE_CREATED_EVENT.id}` },
      { since: '2026-11-23T00:00:00Z', until: '2026-11-23T12:00:00Z' },
    ],
  });

export const ReplayResponse = z
  .object({ replayed: z.number().int().describe('how many messages are being resent') })
  .meta({ id: 'WebhookReplay', examples: [{ replayed: 1 }] });
export const EndpointList = pageOf(WebhookEndpoint, EXAMPLE_WEBHOOK_ENDPOINT);
export const AttemptList = pageOf(WebhookAttempt, EXAMPLE_WEBHOOK_ATTEMPT);
export const DeletedEndpoint = z
  .object({ id: z.uuid(), deleted: z.literal(true) })
  .meta({ examples: [{ id: EXAMPLE_WEBHOOK_ENDPOINT.id, deleted: true }] });
