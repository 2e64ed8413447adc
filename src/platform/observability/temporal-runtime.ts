// The worker's Temporal runtime: its logger (pino, through TemporalPinoLogger) and Temporal Core's Prometheus
// exporter (the SDK's own metrics: workflow and activity task latencies, slots, polls, sticky cache ...), bound on a
// loopback port and served with the worker's metrics (src/worker.ts). And the activity interceptor that adds the
// delivery and tenant of an activity's input to its log lines.
import { Runtime, makeTelemetryFilterString, type ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Logger as Pino } from 'pino';
import { TemporalPinoLogger } from './logger.js';

/**
 * Runtime.install, once per process, before any worker or NativeConnection. `coreMetricsAddress` (host:port): where
 * Temporal Core serves Prometheus metrics (seconds for durations, `_total` on counters); none without it.
 */
export function installWorkerRuntime(logger: Pino, options: { coreMetricsAddress?: string } = {}): void {
  Runtime.install({
    logger: new TemporalPinoLogger(logger),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} },
      ...(options.coreMetricsAddress
        ? {
            metrics: {
              prometheus: {
                bindAddress: options.coreMetricsAddress,
                useSecondsForDurations: true,
                countersTotalSuffix: true,
              },
            },
          }
        : {}),
    },
  });
}

const ids = (arg: unknown): Record<string, string> => {
  if (!arg || typeof arg !== 'object') return {};
  const { deliveryId, tenantId } = arg as { deliveryId?: unknown; tenantId?: unknown };
  return {
    ...(typeof deliveryId === 'string' ? { deliveryId } : {}),
    ...(typeof tenantId === 'string' ? { tenantId } : {}),
  };
};

/** An activity's log lines carry the deliveryId and tenantId of its input (most activities take them). */
export const activityLogContext: ActivityInterceptorsFactory = () => {
  let known: Record<string, string> = {};
  return {
    inbound: {
      async execute(input, next) {
        known = ids(input.args[0]);
        return next(input);
      },
    },
    outbound: {
      getLogAttributes: (attributes, next) => next({ ...known, ...attributes }),
    },
  };
};
