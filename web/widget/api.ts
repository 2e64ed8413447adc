// Talking to the API from the shopper's browser: POSTs through CORS without cookies, every failure turned into a
// WidgetError carrying the shopper's message, and the probe that tells a refused origin from a broken connection.
import type { Strings } from './strings';
import type { FieldProblem } from './types';

/** A failure the widget shows and reports in an `error` event. */
export class WidgetError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly apiDetail?: string,
    readonly errors?: FieldProblem[],
  ) {
    super(message);
  }
}

/** Codes after which trying again can help: the error gets a retry button. */
export const RETRYABLE_CODES = [
  'network',
  'timeout',
  'rate_limited',
  'upstream_unavailable',
  'idempotency_request_in_progress',
];
/** Codes of a quote that can no longer be booked: the shopper asks for prices again. */
export const STALE_QUOTE_CODES = ['quote_expired', 'quote_already_used', 'quote_not_found', 'quote_payload_mismatch'];

// The API's address defaults to where this script came from (document.currentScript is set while it runs).
export const SCRIPT_ORIGIN = (() => {
  try {
    const src = (document.currentScript as HTMLScriptElement | null)?.src;
    return src ? new URL(src).origin : '';
  } catch {
    return '';
  }
})();

/** How long each origin probe (see unreachable()) may take before it counts as a connection problem. */
const PROBE_TIMEOUT_MS = 10_000;
/** The delivery the origin probe asks for: none has this id, so the API answers 404 quickly to an allowed origin. */
const PROBE_DELIVERY_ID = '00000000-0000-0000-0000-000000000000';

/** fetch() through CORS without cookies, given up after `ms`: the answer, or why there was none. */
async function fetchWithin(url: string, init: RequestInit, ms: number): Promise<Response | 'timeout' | 'failed'> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    return await fetch(url, { ...init, mode: 'cors', credentials: 'omit', signal: controller.signal });
  } catch {
    return controller.signal.aborted ? 'timeout' : 'failed';
  } finally {
    clearTimeout(timer);
  }
}

export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function messageFor(status: number, code: string, t: Strings): string {
  if (status === 401) return t.unauthorized(location.origin);
  if (STALE_QUOTE_CODES.includes(code)) return t.expired;
  if (status === 429) return t.rateLimited;
  if (status === 502) return t.upstream;
  if (status === 503) return t.noCourier;
  if (code === 'idempotency_request_in_progress') return t.inProgress;
  if (code === 'payment_method_not_allowed') return t.paymentNotAllowed;
  if (status === 422) return t.checkFields;
  return t.generic(status);
}

/** What a call needs, read from the element's attributes when the call starts. */
export interface ApiSettings {
  base: string;
  key: string;
  t: Strings;
}

export class WidgetApi {
  /** Set once the API has answered this page: a later failed request is then a connection problem, not the origin. */
  private apiAnswered = false;

  constructor(private readonly settings: () => ApiSettings) {}

  async post<R>(path: string, body: unknown, idempotencyKey?: string): Promise<R> {
    const { base, key, t } = this.settings();
    const headers: Record<string, string> = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    const res = await fetchWithin(base + path, { method: 'POST', headers, body: JSON.stringify(body) }, 30_000);
    if (res === 'timeout') throw new WidgetError('timeout', 0, t.timeout);
    if (res === 'failed') throw await this.unreachable();
    // A readable answer: the browser let this origin through (CORS), so later failures are the connection's.
    this.apiAnswered = true;
    const data = await res.json().catch(() => null);
    if (res.ok) return data as R;
    const code: string = typeof data?.error === 'string' ? data.error : `http_${res.status}`;
    const detail: string | undefined = typeof data?.detail === 'string' ? data.detail : undefined;
    const errors: FieldProblem[] | undefined = Array.isArray(data?.errors) ? data.errors : undefined;
    throw new WidgetError(code, res.status, messageFor(res.status, code, this.settings().t), detail, errors);
  }

  /**
   * fetch() threw: the network failed (down, reset, timed out) or the browser refused the answer (CORS). For an origin
   * no key allows, the API refuses the CORS preflight, so its 401 never reaches this page. To tell the two apart, the
   * widget asks the API once more through CORS with the same key (a cheap GET on the widget surface, preflighted like
   * the real request): any readable answer means the browser lets this origin through, so the failure was the
   * connection's; a 401 is the API refusing this origin for the key. Only when that probe is refused as well while the
   * widget script (readable from any origin) still answers is the origin the problem; a transient failure of the
   * first request is never reported as "not allowed".
   */
  private async unreachable(): Promise<WidgetError> {
    const { base, key, t } = this.settings();
    const network = new WidgetError('network', 0, t.network);
    // The API has answered this page before: the origin is fine, the connection is not.
    if (this.apiAnswered) return network;
    const probe = async (url: string, init: RequestInit): Promise<Response | null> => {
      const res = await fetchWithin(url, { ...init, cache: 'no-store' }, PROBE_TIMEOUT_MS);
      return typeof res === 'string' ? null : res;
    };
    const keyed = await probe(`${base}/v1/widget/deliveries/${PROBE_DELIVERY_ID}`, {
      method: 'GET',
      headers: { Authorization: `Bearer ${key}` },
    });
    if (keyed) {
      this.apiAnswered = true;
      return keyed.status === 401
        ? new WidgetError('origin_not_allowed', 401, t.unauthorized(location.origin))
        : network;
    }
    const script = await probe(`${base}/widget.js`, { method: 'HEAD' });
    if (script?.ok) return new WidgetError('origin_not_allowed', 401, t.unauthorized(location.origin));
    return network;
  }
}
