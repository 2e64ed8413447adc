// Prometheus metrics of this process (prom-client, text exposition format), in one registry. The API and the worker
// each serve it (src/platform/observability/metrics-server.ts, src/http/plugins/metrics.ts); series a process never touches
// appear there without samples. Names, labels and what each one counts: docs/operations.md "Observability".
// Labels stay bounded: route patterns (never raw URLs), courier slugs, event types, reasons; never ids.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { STATUSES, isFinal } from '../../../shared/deliveries/vocabulary.js';

const OPEN_STATUSES = STATUSES.filter((status) => !isFinal(status));

export const registry = new Registry();
// process_* and nodejs_* (CPU, memory, event-loop lag, GC): cheap, read on scrape.
collectDefaultMetrics({ register: registry });

/** Seconds; from a fast API answer to a courier call at its timeout. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; webhooks are retried for up to about 3 days (WEBHOOK_SCHEDULE_MS). */
const WEBHOOK_DELAY_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 18_000, 36_000, 86_400, 259_200];

/** A counter in this registry. */
function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [registry] });
}
/** A histogram in this registry, with its buckets (seconds). */
function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[],
): Histogram<L> {
  return new Histogram({ name, help, labelNames, buckets, registers: [registry] });
}

// --- API ---------------------------------------------------------------------------------------------------------
export const httpRequests = counter(
  'http_requests_total',
  'API requests answered, by method, matched route pattern and status code.',
  ['method', 'route', 'status_code'],
);
export const httpRequestDuration = histogram(
  'http_request_duration_seconds',
  'API request latency (received to answered), by method, matched route pattern and status code.',
  ['method', 'route', 'status_code'],
  LATENCY_BUCKETS,
);

// --- Couriers (API quotes and worker bookings/cancellations) -----------------------------------------------------
export const courierCallDuration = histogram(
  'delivery_courier_call_duration_seconds',
  'Calls to courier companies (quote, book, cancel), by courier slug, operation and outcome (ok, unavailable, rejected, error).',
  ['courier', 'operation', 'outcome'],
  LATENCY_BUCKETS,
);
export const courierCallErrors = counter(
  'delivery_courier_call_errors_total',
  'Failed courier calls, by courier slug, operation and error: unavailable (timeout, network, 5xx, not the protocol), rejected (a final 4xx), error (anything else).',
  ['courier', 'operation', 'error'],
);

// --- Deliveries (worker) -----------------------------------------------------------------------------------------
export const deliveryTransitions = counter(
  'delivery_transitions_total',
  'Delivery events recorded by the delivery workflows (status changes and dispatches; ignored fleet events excluded), by event type.',
  ['type'],
);
export const deliveryStalls = counter(
  'delivery_stalls_total',
  'Deliveries that went to stalled, by reason and courier slug.',
  ['reason', 'courier'],
);
export const deliveryRedispatches = counter(
  'delivery_redispatches_total',
  'Deliveries moved to another booking: automatic failover (automatic="true", by its reason) or an operator (automatic="false").',
  ['automatic', 'reason'],
);

// --- Merchant webhooks (worker) ----------------------------------------------------------------------------------
export const webhookAttempts = counter(
  'delivery_webhook_attempts_total',
  'Merchant webhook attempts, by outcome (succeeded, retry, final, exhausted, inactive) and trigger (event, replay ...).',
  ['outcome', 'trigger'],
);
export const webhookDelay = histogram(
  'delivery_webhook_delay_seconds',
  'Time from a delivery event to its webhook: stage="first_attempt" when the first attempt starts, stage="delivered" when an attempt succeeds.',
  ['stage'],
  WEBHOOK_DELAY_BUCKETS,
);

/**
 * Deliveries by status, read from Postgres when scraped (at most once per `cacheMs`: several Prometheus servers or a
 * short scrape interval cost one query). Only the statuses a delivery can still leave: finished deliveries grow
 * forever and are counted by delivery_transitions_total. The worker sets the source; the API has none (no samples).
 */
let statusSource: { read: () => Promise<{ status: string; count: number }[]>; cacheMs: number } | null = null;
let statusCache: { at: number; rows: { status: string; count: number }[] } | null = null;
new Gauge({
  name: 'delivery_deliveries',
  help: 'Deliveries not yet finished, by status (read from Postgres on scrape, cached for METRICS_STATUS_CACHE_MS).',
  labelNames: ['status'] as const,
  registers: [registry],
  async collect() {
    if (!statusSource) return;
    this.reset();
    if (!statusCache || Date.now() - statusCache.at >= statusSource.cacheMs) {
      try {
        statusCache = { at: Date.now(), rows: await statusSource.read() };
      } catch {
        statusCache = null; // Postgres unreachable: no samples this scrape (absent, not a wrong zero), the rest is served
        return;
      }
    }
    // Every open status, 0 when none: a rule comparing over time needs the series to exist.
    for (const status of OPEN_STATUSES) this.set({ status }, 0);
    for (const row of statusCache.rows) this.set({ status: row.status }, row.count);
  },
});

export function setDeliveryStatusSource(
  read: () => Promise<{ status: string; count: number }[]>,
  cacheMs: number,
): void {
  statusSource = { read, cacheMs };
  statusCache = null;
}

/**
 * Cash on delivery: live cash collected and not remitted past its remittance terms, per courier slug, in AOA centavos
 * (docs/cash-on-delivery.md "Overdue"). Read from Postgres when scraped, cached like delivery_deliveries; the worker
 * sets the source.
 */
let codOverdueSource: { read: () => Promise<{ courier: string; overdue_aoa: number }[]>; cacheMs: number } | null =
  null;
let codOverdueCache: { at: number; rows: { courier: string; overdue_aoa: number }[] } | null = null;
new Gauge({
  name: 'delivery_cod_overdue_aoa',
  help: 'Live cash-on-delivery cash past its remittance terms and not remitted, per courier slug, in AOA centavos.',
  labelNames: ['courier'] as const,
  registers: [registry],
  async collect() {
    if (!codOverdueSource) return;
    this.reset();
    if (!codOverdueCache || Date.now() - codOverdueCache.at >= codOverdueSource.cacheMs) {
      try {
        codOverdueCache = { at: Date.now(), rows: await codOverdueSource.read() };
      } catch {
        codOverdueCache = null;
        return;
      }
    }
    for (const row of codOverdueCache.rows) this.set({ courier: row.courier }, row.overdue_aoa);
  },
});

export function setCodOverdueSource(
  read: () => Promise<{ courier: string; overdue_aoa: number }[]>,
  cacheMs: number,
): void {
  codOverdueSource = { read, cacheMs };
  codOverdueCache = null;
}
