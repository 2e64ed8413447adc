// Traces (OpenTelemetry): from the API's HTTP request through the workflow start (Temporal's client interceptor) into
// the workflow (interceptors in the workflow bundle: workflows/lib/observability.ts), its activities (the worker's
// activity interceptor) and the courier calls (src/couriers/adapters/observed.ts, plus undici's client spans).
// On only when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: spans leave by OTLP over
// HTTP (protobuf, or JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json). Off, nothing is loaded and nothing is
// intercepted: the SDK is imported on demand, and the workflow interceptors pass through for a workflow started
// without a trace context. The standard OTEL_* variables apply (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
// OTEL_TRACES_SAMPLER ...). Every process calls startTracing once, before it serves requests.
import { context, trace, type Tracer } from '@opentelemetry/api';
import { createRequire } from 'node:module';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';

interface ActiveTracing {
  setHttpRoute(route: string): void;
  clientInterceptor: WorkflowClientInterceptor;
  activityInterceptors: ActivityInterceptorsFactory;
  workflowSinks: InjectedSinks<Record<string, Record<string, (...args: any[]) => void>>>;
  shutdown(): Promise<void>;
}

let active: ActiveTracing | null = null;

const NOT_TRACED = ['/healthz', '/readyz', '/metrics'];

/** The span exporter OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL asks for (http/protobuf by default); it reads the endpoint and headers itself. */
async function otlpExporter(env: NodeJS.ProcessEnv): Promise<SpanExporter> {
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (protocol === 'http/protobuf')
    return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  if (protocol === 'http/json')
    return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  throw new Error(
    `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf (the collector's port 4318) or http/json`,
  );
}

const tracingRequested = (env: NodeJS.ProcessEnv): boolean =>
  Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
  env.OTEL_SDK_DISABLED !== 'true';

/**
 * Starts the OpenTelemetry Node SDK when the environment asks for it (see above); returns whether tracing is on.
 * `serviceName` is the default `service.name` (OTEL_SERVICE_NAME wins). Once per process; later calls change nothing.
 */
export async function startTracing(serviceName: string): Promise<boolean> {
  // process.env: the exporters and the SDK read the OTEL_* variables there themselves.
  const env = process.env;
  if (active) return true;
  if (!tracingRequested(env)) return false;
  const [
    core,
    { NodeSDK },
    { BatchSpanProcessor },
    resources,
    { HttpInstrumentation },
    { UndiciInstrumentation },
    otelTemporal,
  ] = await Promise.all([
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-undici'),
    import('@temporalio/interceptors-opentelemetry'),
  ]);
  // service.name from here unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say otherwise; the workflows' spans
  // (exported from the worker through a sink) carry the same resource.
  const resource = new resources.Resource({ 'service.name': serviceName }).merge(
    resources.detectResourcesSync({
      detectors: [resources.envDetectorSync, resources.processDetectorSync, resources.hostDetectorSync],
    }),
  );
  const processor: SpanProcessor = new BatchSpanProcessor(await otlpExporter(env));
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [processor],
    logRecordProcessors: [], // logs stay pino's (stdout); no OTLP log exporter
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => NOT_TRACED.includes((req.url ?? '').split('?')[0]),
        // Temporal's client speaks HTTP/2 (not instrumented); undici's requests have their own instrumentation.
        ignoreOutgoingRequestHook: () => true,
      }),
      // Courier calls and webhook attempts, inside a traced request or activity (a scrape of Temporal Core's metrics is not).
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  sdk.start();
  // The HTTP instrumentation patches Node's http module when it is next required (require-in-the-middle). Fastify
  // may have required it already (a bundle imports it first); requiring it now patches the shared http.Server
  // prototype, so the API's requests are traced whatever the load order.
  createRequire(import.meta.url)('http');
  active = {
    setHttpRoute(route) {
      const request = core.getRPCMetadata(context.active());
      if (request?.type === core.RPCType.HTTP) request.route = route;
    },
    clientInterceptor: new otelTemporal.OpenTelemetryWorkflowClientInterceptor(),
    activityInterceptors: (ctx) => ({
      inbound: new otelTemporal.OpenTelemetryActivityInboundInterceptor(ctx),
      outbound: new otelTemporal.OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
    workflowSinks: { exporter: otelTemporal.makeWorkflowExporter(processor, resource) },
    shutdown: () => sdk.shutdown(),
  };
  return true;
}

/** Flushes the spans still buffered and stops the SDK (process shutdown). */
export async function stopTracing(): Promise<void> {
  const tracing = active;
  active = null;
  await tracing?.shutdown().catch(() => {});
}

/** The tracer of this application's own spans (courier calls), or null when tracing is off: nothing to pay then. */
export function activeTracer(): Tracer | null {
  return active ? trace.getTracer('delivery-api') : null;
}

/**
 * Names the current HTTP server span after the matched route (`POST /v1/deliveries/:id`, attribute http.route); null
 * when tracing is off (the API then adds no hook for it).
 */
export function httpRouteNamer(): ((route: string) => void) | null {
  return active ? active.setHttpRoute : null;
}

/** Interceptors of a Temporal client (workflow start, signal, update, query): none when tracing is off. */
export function temporalClientInterceptors(): WorkflowClientInterceptor[] {
  return active ? [active.clientInterceptor] : [];
}

/** The worker's activity interceptors for tracing: none when off. */
export function tracingActivityInterceptors(): ActivityInterceptorsFactory[] {
  return active ? [active.activityInterceptors] : [];
}

/**
 * The sink the workflow interceptors export their spans through. Always registered: a workflow started with a trace
 * context (another process traces) reaches a worker that does not; its spans are then dropped here.
 */
export function workflowTracingSinks(): InjectedSinks<Record<string, Record<string, (...args: any[]) => void>>> {
  return active ? active.workflowSinks : { exporter: { export: { fn: () => {} } } };
}
