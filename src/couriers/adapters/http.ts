// The `http` adapter: a courier company's own API, spoken through the courier protocol of design.md.
//   POST   {endpoint}/quotes                  {origin, destination, parcel} -> {fee_aoa, eta_minutes, valid_for_seconds}
//   POST   {endpoint}/bookings                {delivery_id, reference, ..., callback_url} -> {tracking_ref, status}
//          with `Idempotency-Key: <delivery id>.<booking number>`: the courier answers a repeated key with the first booking
//   DELETE {endpoint}/bookings/{tracking_ref} -> 200, or 409 when the courier refuses
//   POST   {endpoint}/bookings/{tracking_ref}/updates {instructions?, destination_coordinates?, preferred_window?}
//          -> 2xx (the recipient's answers, docs/recipients.md)
//
// How answers map (docs/quotes.md, "Courier protocol"):
//   quotes    2xx + valid body -> the quote; 409/422 -> null ("cannot carry this parcel");
//             anything else (timeout, network error, 5xx, other 4xx, a body that is not the protocol) -> CourierUnavailableError.
//   bookings  2xx + valid body -> the booking; 409/422 and other final 4xx -> CourierRejectedError;
//             408/425/429, 5xx, timeout, network error, garbage -> CourierUnavailableError (retrying may help).
//   cancel    2xx or 404 (nothing left to cancel: an earlier cancel went through) -> 'cancelled'; 409/422 -> 'refused';
//             anything else -> CourierUnavailableError.
//   updates   2xx -> 'sent'; 408/425/429 -> CourierUnavailableError; other 4xx -> 'refused'; 5xx, timeout,
//             network error -> CourierUnavailableError.
// Every call is bounded by one timeout covering connect, headers and body; bodies are read up to 256 KiB.
import { Agent, request as undiciRequest } from 'undici';
import { z } from 'zod';
import type { CourierRow } from '../repository.js';
import type { RecipientUpdate } from '../../../shared/deliveries/vocabulary.js';
import {
  CourierRejectedError,
  CourierUnavailableError,
  type BookingRequest,
  type BookingResult,
  type CourierAdapter,
  type CourierQuote,
  type QuoteRequest,
} from './adapter.js';

export const DEFAULT_COURIER_TIMEOUT_MS = 2000;
const MAX_BODY_BYTES = 256 * 1024;

/**
 * One keep-alive connection pool per process, shared by every http courier. HTTP/1.1 only (undici 8 would otherwise
 * negotiate HTTP/2 with a TLS courier): the courier protocol is specified and tested on HTTP/1.1.
 */
let sharedAgent: Agent | null = null;
export function courierAgent(): Agent {
  sharedAgent ??= new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
    connections: 256,
    pipelining: 1,
    allowH2: false,
  });
  return sharedAgent;
}
/** Closes the shared pool (tests, benchmark shutdown). A later call creates a new one. */
export async function closeCourierAgent(): Promise<void> {
  const agent = sharedAgent;
  sharedAgent = null;
  await agent?.destroy().catch(() => {});
}

const money = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const UpstreamQuote = z.object({
  fee_aoa: money,
  eta_minutes: z.number().int().nonnegative().max(1_000_000),
  valid_for_seconds: z
    .number()
    .int()
    .positive()
    .max(365 * 86_400)
    .nullish(),
  /** Optional: the courier's own reference for the quote. */
  quote_ref: z.string().min(1).max(200).nullish(),
});

export const UpstreamBooking = z.object({
  tracking_ref: z.string().trim().min(1).max(200),
  status: z.enum(['accepted', 'pending']),
});

interface Answer {
  status: number;
  body: unknown;
}

export interface HttpAdapterOptions {
  timeoutMs?: number;
}

export class HttpCourierAdapter implements CourierAdapter {
  readonly timeoutMs: number;

  constructor(
    readonly courier: Pick<CourierRow, 'slug' | 'endpoint' | 'timeout_ms'>,
    options: HttpAdapterOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? courier.timeout_ms ?? DEFAULT_COURIER_TIMEOUT_MS;
  }

  private unavailable(message: string): CourierUnavailableError {
    return new CourierUnavailableError(this.courier.slug, message);
  }

  private url(path: string): string {
    const endpoint = this.courier.endpoint;
    if (!endpoint) throw this.unavailable('no endpoint configured');
    return endpoint.replace(/\/+$/, '') + path;
  }

  /** One protocol call. Resolves with the status and the parsed JSON body (undefined when not JSON); throws CourierUnavailableError on transport failures. */
  private async call(
    method: 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<Answer> {
    const url = this.url(path);
    const signal = AbortSignal.timeout(this.timeoutMs);
    let res;
    try {
      res = await undiciRequest(url, {
        method,
        dispatcher: courierAgent(),
        signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        headers:
          body === undefined
            ? { accept: 'application/json', ...extraHeaders }
            : { accept: 'application/json', 'content-type': 'application/json', ...extraHeaders },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw this.unavailable(
        signal.aborted ? `no answer within ${this.timeoutMs} ms` : `request failed: ${(err as Error).message}`,
      );
    }
    let text = '';
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_BODY_BYTES) {
          res.body.destroy();
          throw new Error(`answer larger than ${MAX_BODY_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (err) {
      throw this.unavailable(
        signal.aborted
          ? `no complete answer within ${this.timeoutMs} ms`
          : `reading the answer failed: ${(err as Error).message}`,
      );
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.statusCode, body: parsed };
  }

  async quote(request: QuoteRequest): Promise<CourierQuote | null> {
    const { status, body } = await this.call('POST', '/quotes', {
      origin: request.origin,
      destination: request.destination,
      parcel: request.parcel,
    });
    if (status === 409 || status === 422) return null;
    if (status < 200 || status >= 300) throw this.unavailable(`quote answered HTTP ${status}`);
    const parsed = UpstreamQuote.safeParse(body);
    if (!parsed.success) throw this.unavailable('quote answer is not the courier protocol');
    return {
      fee_aoa: parsed.data.fee_aoa,
      eta_minutes: parsed.data.eta_minutes,
      ...(parsed.data.valid_for_seconds ? { valid_for_seconds: parsed.data.valid_for_seconds } : {}),
      upstream_ref: parsed.data.quote_ref ?? null,
    };
  }

  async book(request: BookingRequest): Promise<BookingResult> {
    const { status, body } = await this.call(
      'POST',
      '/bookings',
      {
        delivery_id: request.delivery_id,
        reference: request.reference,
        origin: request.origin,
        destination: request.destination,
        parcel: request.parcel,
        payment_method: request.payment_method,
        cash_collect_aoa: request.cash_collect_aoa,
        scheduled_pickup_at: request.scheduled_pickup_at,
        callback_url: request.callback_url,
      },
      { 'idempotency-key': request.idempotency_key },
    );
    if (status >= 400 && status < 500 && ![408, 425, 429].includes(status)) {
      const reason =
        body && typeof body === 'object' && 'error' in body
          ? `: ${String((body as { error: unknown }).error).slice(0, 200)}`
          : '';
      throw new CourierRejectedError(this.courier.slug, status, `booking refused with HTTP ${status}${reason}`);
    }
    if (status < 200 || status >= 300) throw this.unavailable(`booking answered HTTP ${status}`);
    const parsed = UpstreamBooking.safeParse(body);
    if (!parsed.success) throw this.unavailable('booking answer is not the courier protocol');
    return parsed.data;
  }

  async cancel(trackingRef: string): Promise<'cancelled' | 'refused'> {
    const { status } = await this.call('DELETE', `/bookings/${encodeURIComponent(trackingRef)}`);
    if ((status >= 200 && status < 300) || status === 404) return 'cancelled';
    if (status === 409 || status === 422) return 'refused';
    throw this.unavailable(`cancellation answered HTTP ${status}`);
  }

  async update(trackingRef: string, update: RecipientUpdate): Promise<'sent' | 'refused'> {
    const { status } = await this.call('POST', `/bookings/${encodeURIComponent(trackingRef)}/updates`, update);
    if (status >= 200 && status < 300) return 'sent';
    if (status >= 400 && status < 500 && ![408, 425, 429].includes(status)) return 'refused';
    throw this.unavailable(`update answered HTTP ${status}`);
  }
}
