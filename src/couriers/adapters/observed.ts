// Every courier call measured (src/platform/observability/metrics.ts): its latency by courier, operation and outcome, and its
// failures by kind; and, when tracing is on, a span `courier <operation>` (the HTTP call's own span is its child).
// adapterFor wraps every adapter in this, so quotes (API), bookings and cancellations (worker) are all seen.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { courierCallDuration, courierCallErrors } from '../../platform/observability/metrics.js';
import { activeTracer } from '../../platform/observability/tracing.js';
import { CourierRejectedError, CourierUnavailableError, type CourierAdapter } from './adapter.js';

type Operation = 'quote' | 'book' | 'cancel' | 'update';

const errorKind = (err: unknown) =>
  err instanceof CourierUnavailableError ? 'unavailable' : err instanceof CourierRejectedError ? 'rejected' : 'error';

async function measured<T>(courier: string, operation: Operation, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    courierCallDuration.observe({ courier, operation, outcome: 'ok' }, (performance.now() - started) / 1000);
    return result;
  } catch (err) {
    const kind = errorKind(err);
    courierCallDuration.observe({ courier, operation, outcome: kind }, (performance.now() - started) / 1000);
    courierCallErrors.inc({ courier, operation, error: kind });
    throw err;
  }
}

function traced<T>(courier: string, operation: Operation, call: () => Promise<T>): Promise<T> {
  const tracer = activeTracer();
  if (!tracer) return measured(courier, operation, call);
  return tracer.startActiveSpan(
    `courier ${operation}`,
    { kind: SpanKind.CLIENT, attributes: { 'courier.slug': courier, 'courier.operation': operation } },
    async (span) => {
      try {
        return await measured(courier, operation, call);
      } catch (err) {
        span.setAttribute('courier.error', errorKind(err));
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

export function observed(courier: string, adapter: CourierAdapter): CourierAdapter {
  return {
    quote: (request) => traced(courier, 'quote', () => adapter.quote(request)),
    book: (request) => traced(courier, 'book', () => adapter.book(request)),
    cancel: (trackingRef) => traced(courier, 'cancel', () => adapter.cancel(trackingRef)),
    update: (trackingRef, update) => traced(courier, 'update', () => adapter.update(trackingRef, update)),
  };
}
