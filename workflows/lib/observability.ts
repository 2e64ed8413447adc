// Workflow interceptors, bundled with every workflow (src/platform/workflow-bundle.ts: workflowInterceptorModules).
//  - Logs: a workflow's log lines carry the deliveryId and tenantId of its input (every delivery and webhook workflow
//    takes them), beside the workflowId and runId Temporal adds.
//  - Traces: Temporal's OpenTelemetry interceptors (@temporalio/interceptors-opentelemetry), for a run started with a
//    trace context only (the starter traced: src/platform/observability/tracing.ts). A run started without one passes every
//    call straight through: no span, no sink call, no extra yield, so histories recorded before tracing existed replay
//    unchanged (test/deliveries/lifecycle.test.ts). Whether a run is traced comes from its start headers, which are in its
//    history: the choice is the same on replay.
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import {
  workflowInfo,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type * as OpenTelemetryInterceptors from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { TenantIdKey } from '../../shared/search-attributes.js';

/**
 * Temporal's OpenTelemetry interceptors, loaded by traced runs only. Every run evaluates the bundle's modules again
 * (each has its own context), and the OpenTelemetry API's modules were 6 % of the CPU of replaying a whole lifecycle
 * (bench/workflow-replay.ts) for runs that, untraced, never use them. A `require` in a function is a lazy
 * `__webpack_require__` in the workflow bundle (synchronous, as the static import was: no extra yield).
 */
function openTelemetry(): typeof OpenTelemetryInterceptors {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js') as typeof OpenTelemetryInterceptors;
}

/** The header Temporal's OpenTelemetry interceptors carry the trace context in. */
const TRACE_HEADER = '_tracer-data';

/** The start headers hold a W3C trace context (`traceparent`). */
function carriesTrace(headers: Headers): boolean {
  const payload = headers[TRACE_HEADER];
  if (!payload) return false;
  try {
    const carrier = defaultPayloadConverter.fromPayload<Record<string, unknown>>(payload);
    return typeof carrier?.traceparent === 'string';
  } catch {
    return false;
  }
}

/**
 * A delivery workflow's ids before its input is seen (its "Workflow started" line): the delivery from the workflow id,
 * the tenant from the TenantId search attribute it was started with.
 */
function idsOfDeliveryWorkflow(): Record<string, string> {
  const info = workflowInfo();
  const deliveryId = /^delivery-(.+)$/.exec(info.workflowId)?.[1];
  const tenantId = info.typedSearchAttributes.get(TenantIdKey);
  return { ...(deliveryId && tenantId ? { deliveryId, tenantId } : {}) };
}

function idsOf(arg: unknown): Record<string, string> {
  if (!arg || typeof arg !== 'object') return {};
  const { deliveryId, tenantId } = arg as { deliveryId?: unknown; tenantId?: unknown };
  return {
    ...(typeof deliveryId === 'string' ? { deliveryId } : {}),
    ...(typeof tenantId === 'string' ? { tenantId } : {}),
  };
}

/** What one run's interceptors share: its ids, and its OpenTelemetry interceptors when traced. */
interface Run {
  /** Null until the input is seen (then from the search attributes, for a delivery workflow). */
  ids: Record<string, string> | null;
  otel: {
    inbound: OpenTelemetryInterceptors.OpenTelemetryInboundInterceptor;
    outbound: OpenTelemetryInterceptors.OpenTelemetryOutboundInterceptor;
    internals: OpenTelemetryInterceptors.OpenTelemetryInternalsInterceptor;
  } | null;
}

/** The run's OpenTelemetry interceptors (once traced). */
type Otel = NonNullable<Run['otel']>;
/** An interceptor method, as far as passing a call on goes. */
type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/**
 * The interceptor `methods` that hand each call to the run's OpenTelemetry interceptor of that `kind` when the run is
 * traced, and straight to `next` when it is not. They are plain functions returning `next`'s promise (never `async`):
 * passing through adds no yield point.
 */
function otelWhenTraced<K extends keyof Otel, M extends keyof Otel[K]>(
  run: Run,
  kind: K,
  methods: readonly M[],
): Pick<Otel[K], M> {
  const picked: Partial<Record<M, Method>> = {};
  for (const method of methods) {
    picked[method] = (input, next) =>
      run.otel ? (run.otel[kind] as Record<M, Method>)[method](input, next) : next(input);
  }
  return picked as Pick<Otel[K], M>;
}

/** Sees the input (ids, trace context) first; the rest as otelWhenTraced. */
function inbound(run: Run): WorkflowInboundCallsInterceptor {
  return {
    execute: (input, next) => {
      run.ids = idsOf(input.args[0]);
      if (!carriesTrace(input.headers)) return next(input);
      const { OpenTelemetryInboundInterceptor, OpenTelemetryOutboundInterceptor, OpenTelemetryInternalsInterceptor } =
        openTelemetry();
      run.otel = {
        inbound: new OpenTelemetryInboundInterceptor(),
        outbound: new OpenTelemetryOutboundInterceptor(),
        internals: new OpenTelemetryInternalsInterceptor(),
      };
      return run.otel.inbound.execute(input, next);
    },
    ...otelWhenTraced(run, 'inbound', ['handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery']),
  };
}

/** Adds the ids (and, traced, the span) to every log line; the rest as otelWhenTraced. */
function outbound(run: Run): WorkflowOutboundCallsInterceptor {
  return {
    ...otelWhenTraced(run, 'outbound', [
      'scheduleActivity',
      'scheduleLocalActivity',
      'startChildWorkflowExecution',
      'signalWorkflow',
      'continueAsNew',
    ]),
    getLogAttributes: (input, next) => {
      run.ids ??= idsOfDeliveryWorkflow();
      const attributes = { ...run.ids, ...input };
      // Traced: the line also carries the active span's trace_id and span_id.
      return run.otel ? run.otel.outbound.getLogAttributes(attributes, next) : next(attributes);
    },
  };
}

export const interceptors = (): WorkflowInterceptors => {
  const run: Run = { ids: null, otel: null };
  return {
    inbound: [inbound(run)],
    outbound: [outbound(run)],
    internals: [otelWhenTraced(run, 'internals', ['dispose'])],
  };
};
