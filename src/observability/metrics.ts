// Prometheus metrics of this process (prom-client, text exposition format), in one registry. The API and the worker
// each serve it (src/observability/metrics-server.ts, src/plugins/metrics.ts); series a process never touches
// appear there without samples. Names, labels and what each one counts: docs/operations.md "Observability".
// Labels stay bounded: route patterns (never raw URLs), courier slugs, event types, reasons; never ids.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { STATUSES, isFinal } from '../../workflows/deliveries/states.js';

const OPEN_STATUSES = STATUSES.filter((status) => !isFinal(status));

export const registry = new Registry();
// process_* and nodejs_* (CPU, memory, event-loop lag, GC): cheap, read on scrape.
collectDefaultMetrics({ register: registry });

/** Seconds; from a fast API answer to a courier call at its timeout. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; webhooks are retried for up to about 3 days (WEBHOOK_SCHEDULE_MS). */
const WEBHOOK_DELAY_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 18_000, 36_000, 86_400, 259_200];

// --- API ---------------------------------------------------------------------------------------------------------
export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'API requests answered, by method, matched route pattern and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  registers: [registry],
});
export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'API request latency (received to answered), by method, matched route pattern and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

// --- Couriers (API quotes and worker bookings/cancellations) -----------------------------------------------------
export const courierCallDuration = new Histogram({
  name: 'delivery_courier_call_duration_seconds',
  help: 'Calls to courier companies (quote, book, cancel), by courier slug, operation and outcome (ok, unavailable, rejected, error).',
  labelNames: ['courier', 'operation', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
export const courierCallErrors = new Counter({
  name: 'delivery_courier_call_errors_total',
  help: 'Failed courier calls, by courier slug, operation and error: unavailable (timeout, network, 5xx, not the protocol), rejected (a final 4xx), error (anything else).',
  labelNames: ['courier', 'operation', 'error'] as const,
  registers: [registry],
});

// --- Deliveries (worker) -----------------------------------------------------------------------------------------
export const deliveryTransitions = new Counter({
  name: 'delivery_transitions_total',
  help: 'Delivery events recorded by the delivery workflows (status changes and dispatches; ignored fleet events excluded), by event type.',
  labelNames: ['type'] as const,
  registers: [registry],
});
export const deliveryStalls = new Counter({
  name: 'delivery_stalls_total',
  help: 'Deliveries that went to stalled, by reason and courier slug.',
  labelNames: ['reason', 'courier'] as const,
  registers: [registry],
});
export const deliveryRedispatches = new Counter({
  name: 'delivery_redispatches_total',
  help: 'Deliveries moved to another booking: automatic failover (automatic="true", by its reason) or an operator (automatic="false").',
  labelNames: ['automatic', 'reason'] as const,
  registers: [registry],
});

// --- Merchant webhooks (worker) ----------------------------------------------------------------------------------
export const webhookAttempts = new Counter({
  name: 'delivery_webhook_attempts_total',
  help: 'Merchant webhook attempts, by outcome (succeeded, retry, final, exhausted, inactive) and trigger (event, replay ...).',
  labelNames: ['outcome', 'trigger'] as const,
  registers: [registry],
});
export const webhookDelay = new Histogram({
  name: 'delivery_webhook_delay_seconds',
  help: 'Time from a delivery event to its webhook: stage="first_attempt" when the first attempt starts, stage="delivered" when an attempt succeeds.',
  labelNames: ['stage'] as const,
  buckets: WEBHOOK_DELAY_BUCKETS,
  registers: [registry],
});

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

export function setDeliveryStatusSource(read: () => Promise<{ status: string; count: number }[]>, cacheMs: number): void {
  statusSource = { read, cacheMs };
  statusCache = null;
}
