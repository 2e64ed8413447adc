// The typed client of the delivery API: openapi-fetch over the types openapi-typescript generates from the served
// OpenAPI document (./schema.ts, `npm run client:generate` at the repository root), plus what a generator cannot do:
//   - the secret (or publishable) key as `Authorization: Bearer ...` on every call;
//   - an `Idempotency-Key` (a random UUID unless the caller passes one) on every creating call, kept across retries;
//   - retries with exponential backoff on 429, 5xx and network errors, waiting what `Retry-After` says when it says;
//   - verifyWebhook(): the Standard Webhooks signature check of a merchant webhook, returning the typed event.
// Usage: docs/client.md.
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import { deliveryEventEvent_typeValues, type components, type paths } from './schema.js';

/** The generated types: `paths`, `operations`, `components` (schemas). */
export type * from './schema.js';

type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
export type Courier = Schemas['Courier'];
export type QuoteEntry = Schemas['QuoteEntry'];
export type Delivery = Schemas['Delivery'];
export type DeliverySummary = Schemas['DeliverySummary'];
export type DeliveryEvent = Schemas['DeliveryEvent'];
export type TrackingView = Schemas['TrackingView'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookAttempt = Schemas['WebhookAttempt'];

export type DeliveryApiClient = Client<paths>;

export interface ClientOptions {
  /** `sk_live_...` (merchant server, /v1/*) or `pk_live_...` (widget, /v1/widget/*); omit for the tracking route alone. */
  apiKey?: string;
  /** The API's address, e.g. `https://api.example.ao` (no trailing `/v1`). */
  baseUrl: string;
  /** A fetch of your own (tests, proxies, instrumentation); defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries after the first attempt on 429, 5xx and network errors [2]; 0 turns retrying off. */
  maxRetries?: number;
  /** First backoff wait in ms when the answer has no `Retry-After` [500]; doubled on each retry, with jitter. */
  retryDelayMs?: number;
  /** Longest wait between two attempts in ms [30000]: a longer `Retry-After` ends the retries and returns the answer. */
  maxRetryDelayMs?: number;
  /** Headers sent on every call (e.g. `Origin` for widget routes called outside a browser). */
  headers?: Record<string, string>;
  /** Waits `ms` between two attempts [a timer]; tests pass their own to see the waits without spending them. */
  sleep?: (ms: number) => Promise<void>;
}

/** Methods that change something: they get an `Idempotency-Key`, which is also what makes retrying them safe. */
const CREATING_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
/** Routes whose callers are not merchants (the courier fleet's signed events): no key, no retry. */
const NOT_IDEMPOTENT_PATHS = ['/v1/fleet/'];
const RETRY_STATUSES = (status: number) => status === 429 || status >= 500;

/**
 * A client for every operation of the API, typed by path and method:
 *   const api = createClient({ apiKey: 'sk_live_...', baseUrl: 'https://api.example.ao' });
 *   const { data, error } = await api.POST('/v1/quotes', { body: { origin, destination, parcel } });
 * `data` is the typed 2xx body, `error` the typed problem+json body; `response` is the raw Response.
 */
export function createClient(options: ClientOptions): DeliveryApiClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: retrying(options.fetch ?? ((request) => globalThis.fetch(request)), {
      maxRetries: options.maxRetries ?? 2,
      retryDelayMs: options.retryDelayMs ?? 500,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
      sleep: options.sleep ?? sleep,
    }),
  });
  client.use(idempotencyKeys);
  return client;
}

/** Sets a random `Idempotency-Key` on creating calls that have none (pass `headers: {'Idempotency-Key': ...}` to choose it). */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (!CREATING_METHODS.has(request.method) || NOT_IDEMPOTENT_PATHS.some((p) => schemaPath.startsWith(p))) return;
    if (!request.headers.has('idempotency-key')) request.headers.set('Idempotency-Key', crypto.randomUUID());
    return request;
  },
};

/**
 * Wraps fetch with retries. Reading calls are always retried; creating calls only with an `Idempotency-Key` (the
 * server then answers a repeat with the first outcome instead of acting twice). Every attempt sends a copy of the same
 * request, so the key and the body are the same each time.
 */
function retrying(
  fetch: (request: Request) => Promise<Response>,
  policy: { maxRetries: number; retryDelayMs: number; maxRetryDelayMs: number; sleep: (ms: number) => Promise<void> },
): (request: Request) => Promise<Response> {
  return async (request) => {
    const retryable = !CREATING_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const last = !retryable || attempt >= policy.maxRetries;
      let response: Response;
      try {
        // The original request goes out last: a copy's body can be read while the original's stays unread.
        response = await fetch(last ? request : request.clone());
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        await policy.sleep(backoff(policy.retryDelayMs, attempt));
        continue;
      }
      if (last || !RETRY_STATUSES(response.status)) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? backoff(policy.retryDelayMs, attempt);
      if (wait > policy.maxRetryDelayMs) return response;
      await response.body?.cancel();
      await policy.sleep(wait);
    }
  };
}

/** Exponential backoff with full jitter: a random wait up to base * 2^attempt. */
const backoff = (base: number, attempt: number) => Math.round(Math.random() * base * 2 ** attempt);

/** `Retry-After` as delay-seconds or an HTTP date, in ms; null when absent or unreadable. */
function retryAfterMs(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// --- Webhooks -----------------------------------------------------------------------------------------------------

/** Every event type the service records and sends as a webhook `type` (docs/webhooks.md): the DeliveryEvent schema's enum. */
export const WEBHOOK_EVENT_TYPES = deliveryEventEvent_typeValues;
export type WebhookEventType = DeliveryEvent['event_type'];

/** One webhook message of type T: the delivery as it stood right after the event, the event, the delivery's metadata. */
export interface WebhookMessage<T extends WebhookEventType = WebhookEventType> {
  /** `msg_<event id>`, equal to the `webhook-id` header: the same on every retry and replay. Deduplicate on it. */
  id: string;
  type: T;
  /** The event's `occurred_at`. */
  created_at: string;
  /** false: a test delivery's message (test mode), sent to endpoints registered with a test key only. */
  livemode: boolean;
  data: {
    delivery: DeliverySummary;
    event: Omit<DeliveryEvent, 'event_type'> & { event_type: T };
    metadata: Record<string, unknown>;
  };
}

/** The union of every webhook message, discriminated by `type` (`switch (event.type)` narrows `data.event`). */
export type WebhookEvent = { [T in WebhookEventType]: WebhookMessage<T> }[WebhookEventType];

/** Headers as Node (`req.headers`), the Fetch API (`request.headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a merchant webhook with the Standard Webhooks library and returns the typed event. `payload` must be the raw
 * body, byte for byte (before any JSON parsing); `secret` the endpoint's `whsec_...`. Throws `WebhookVerificationError`
 * on a bad signature or a timestamp more than 5 minutes away. During a secret rotation, verify with the new secret and
 * fall back to the previous one.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  return new Webhook(secret).verify(body, plainHeaders(headers)) as WebhookEvent;
}

export { WebhookVerificationError } from 'standardwebhooks';

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
