// Workflow interceptors, bundled with every workflow (src/workflow-bundle.ts: workflowInterceptorModules).
//  - Logs: a workflow's log lines carry the deliveryId and tenantId of its input (every delivery and webhook workflow
//    takes them), beside the workflowId and runId Temporal adds.
//  - Traces: Temporal's OpenTelemetry interceptors (@temporalio/interceptors-opentelemetry), for a run started with a
//    trace context only (the starter traced: src/observability/tracing.ts). A run started without one passes every
//    call straight through: no span, no sink call, no extra yield, so histories recorded before tracing existed replay
//    unchanged (test/lifecycle.test.ts). Whether a run is traced comes from its start headers, which are in its
//    history: the choice is the same on replay.
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import {
  workflowInfo,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { TenantIdKey } from '../search-attributes.js';

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
  otel: { inbound: OpenTelemetryInboundInterceptor; outbound: OpenTelemetryOutboundInterceptor; internals: OpenTelemetryInternalsInterceptor } | null;
}

// The methods are plain functions returning `next`'s promise (never `async`): passing through adds no yield point.
class Inbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly run: Run) {}

  execute: NonNullable<WorkflowInboundCallsInterceptor['execute']> = (input, next) => {
    this.run.ids = idsOf(input.args[0]);
    if (!carriesTrace(input.headers)) return next(input);
    this.run.otel = {
      inbound: new OpenTelemetryInboundInterceptor(),
      outbound: new OpenTelemetryOutboundInterceptor(),
      internals: new OpenTelemetryInternalsInterceptor(),
    };
    return this.run.otel.inbound.execute(input, next);
  };
  handleSignal: NonNullable<WorkflowInboundCallsInterceptor['handleSignal']> = (input, next) =>
    this.run.otel ? this.run.otel.inbound.handleSignal(input, next) : next(input);
  handleUpdate: NonNullable<WorkflowInboundCallsInterceptor['handleUpdate']> = (input, next) =>
    this.run.otel ? this.run.otel.inbound.handleUpdate(input, next) : next(input);
  validateUpdate: NonNullable<WorkflowInboundCallsInterceptor['validateUpdate']> = (input, next) =>
    this.run.otel ? this.run.otel.inbound.validateUpdate(input, next) : next(input);
  handleQuery: NonNullable<WorkflowInboundCallsInterceptor['handleQuery']> = (input, next) =>
    this.run.otel ? this.run.otel.inbound.handleQuery(input, next) : next(input);
}

class Outbound implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly run: Run) {}

  scheduleActivity: NonNullable<WorkflowOutboundCallsInterceptor['scheduleActivity']> = (input, next) =>
    this.run.otel ? this.run.otel.outbound.scheduleActivity(input, next) : next(input);
  scheduleLocalActivity: NonNullable<WorkflowOutboundCallsInterceptor['scheduleLocalActivity']> = (input, next) =>
    this.run.otel ? this.run.otel.outbound.scheduleLocalActivity(input, next) : next(input);
  startChildWorkflowExecution: NonNullable<WorkflowOutboundCallsInterceptor['startChildWorkflowExecution']> = (input, next) =>
    this.run.otel ? this.run.otel.outbound.startChildWorkflowExecution(input, next) : next(input);
  signalWorkflow: NonNullable<WorkflowOutboundCallsInterceptor['signalWorkflow']> = (input, next) =>
    this.run.otel ? this.run.otel.outbound.signalWorkflow(input, next) : next(input);
  continueAsNew: NonNullable<WorkflowOutboundCallsInterceptor['continueAsNew']> = (input, next) =>
    this.run.otel ? this.run.otel.outbound.continueAsNew(input, next) : next(input);
  getLogAttributes: NonNullable<WorkflowOutboundCallsInterceptor['getLogAttributes']> = (input, next) => {
    this.run.ids ??= idsOfDeliveryWorkflow();
    const attributes = { ...this.run.ids, ...input };
    // Traced: the line also carries the active span's trace_id and span_id.
    return this.run.otel ? this.run.otel.outbound.getLogAttributes(attributes, next) : next(attributes);
  };
}

class Internals implements WorkflowInternalsInterceptor {
  constructor(private readonly run: Run) {}

  dispose: NonNullable<WorkflowInternalsInterceptor['dispose']> = (input, next) => (this.run.otel ? this.run.otel.internals.dispose(input, next) : next(input));
}

export const interceptors = (): WorkflowInterceptors => {
  const run: Run = { ids: null, otel: null };
  return { inbound: [new Inbound(run)], outbound: [new Outbound(run)], internals: [new Internals(run)] };
};
