// Traces on the real stack (src/platform/observability/tracing.ts): with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP
// receiver in this process, one delivery's creation is one trace, connected from the API's HTTP request through the
// workflow start, the workflow, the dispatch activity and the courier's booking call down to the simulator's HTTP
// server; the quote request's trace reaches the couriers' quote calls.
import { Worker } from '@temporalio/worker';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Simulator } from '../../simulator/server.js';
import {
  startTracing,
  stopTracing,
  temporalClientInterceptors,
  tracingActivityInterceptors,
  workflowTracingSinks,
} from '../../src/platform/observability/tracing.js';
import { deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
}

/** What the OTLP receiver got: every span of every export request (OTLP/HTTP JSON, ids in hex). */
const spans: Span[] = [];
let receiver: http.Server;
let endpoint: string;

const value = (v: Record<string, unknown>) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          const service = String(value(rs.resource.attributes.find((a: any) => a.key === 'service.name')?.value ?? {}));
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const attributes = Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, value(a.value)]));
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                attributes,
                service,
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await stopTracing();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('off without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('starts nothing and intercepts nothing', async () => {
    expect(process.env.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(await startTracing('delivery-test')).toBe(false);
    expect(temporalClientInterceptors()).toEqual([]);
    expect(tracingActivityInterceptors()).toEqual([]);
  });
});

describe('one delivery, one trace', () => {
  let stack: Stack;
  let sim: Simulator;
  let m: Merchant;
  let delivery: { id: string };

  beforeAll(async () => {
    // What an operator sets (the exporters read process.env); the batch processor exports every 100 ms.
    Object.assign(process.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'delivery-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    expect(await startTracing('delivery-api')).toBe(true);
    sim = await startSimulator();
    stack = await startStack();
    m = await merchantWith(stack, sim, [simCompany()]);
    delivery = await createDeliveryFor(stack, m);
    await waitForStatus(stack, m.tenant.secret_key, delivery.id, 'assigned');
    // Cancelled: the workflow ends, so its own span (RunWorkflow) ends and is exported too.
    const cancelled = await stack.request('DELETE', `/v1/deliveries/${delivery.id}`, { key: m.tenant.secret_key });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    await stack.temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).result();
    await stopTracing(); // flushes every buffered span, the workflows' included
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await sim?.close();
  });

  const serverSpan = (method: string, path: string) => {
    const found = spans.find(
      (s) => s.kind === 2 && s.attributes['http.method'] === method && s.attributes['http.target'] === path,
    );
    if (!found)
      throw new Error(`no server span for ${method} ${path}; got ${[...new Set(spans.map((s) => s.name))].join(', ')}`);
    return found;
  };

  /** The names from a span up to the root of its trace, following parentSpanId; fails on a parent that was not exported. */
  const ancestry = (span: Span): string[] => {
    const names = [span.name];
    let current = span;
    while (current.parentSpanId) {
      const parent = spans.find((s) => s.spanId === current.parentSpanId && s.traceId === current.traceId);
      if (!parent) throw new Error(`the parent of ${current.name} (${current.parentSpanId}) was not exported`);
      names.push(parent.name);
      current = parent;
    }
    return names;
  };

  it('POST /v1/deliveries -> workflow start -> the workflow -> dispatchDelivery -> the courier booking -> its HTTP call', () => {
    const root = serverSpan('POST', '/v1/deliveries');
    expect(root.parentSpanId).toBeUndefined();
    expect(root.name).toBe('POST /v1/deliveries');
    expect(root.service).toBe('delivery-test');
    const trace = spans.filter((s) => s.traceId === root.traceId);
    const booking = trace.find((s) => s.name === 'courier book');
    expect(booking, trace.map((s) => s.name).join(', ')).toBeDefined();
    expect(booking!.attributes).toMatchObject({ 'courier.slug': m.slug, 'courier.operation': 'book' });
    expect(ancestry(booking!)).toEqual([
      'courier book',
      'RunActivity:dispatchDelivery',
      'StartActivity:dispatchDelivery',
      'RunWorkflow:deliveryWorkflow',
      'StartWorkflow:deliveryWorkflow',
      root.name,
    ]);
    // The booking's HTTP request (undici) and, the simulator being in this process, the simulator's server span.
    const call = trace.find((s) => s.parentSpanId === booking!.spanId);
    expect(call?.kind).toBe(3); // CLIENT
    expect(trace.some((s) => s.parentSpanId === call!.spanId && s.kind === 2)).toBe(true);
    // The events the workflow recorded on the way (local activities) belong to the same trace.
    expect(trace.filter((s) => s.name === 'RunActivity:recordEvent').length).toBeGreaterThan(0);
    for (const span of trace) expect(ancestry(span).at(-1)).toBe(root.name);
  });

  it("the quote request's trace holds the couriers' quote calls", () => {
    const root = serverSpan('POST', '/v1/quotes');
    const quotes = spans.filter((s) => s.traceId === root.traceId && s.name === 'courier quote');
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) expect(ancestry(q).at(-1)).toBe(root.name);
  });

  it("the cancellation's trace reaches the workflow's update and the courier's cancel call", () => {
    const root = serverSpan('DELETE', `/v1/deliveries/${delivery.id}`);
    expect(root).toMatchObject({
      name: 'DELETE /v1/deliveries/:id',
      attributes: { 'http.route': '/v1/deliveries/:id' },
    });
    const names = spans.filter((s) => s.traceId === root.traceId).map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(['StartWorkflowUpdate:cancel', 'HandleUpdate:cancel', 'courier cancel']),
    );
  });

  it('the traced workflow replays without nondeterminism (the interceptors are in the bundle)', async () => {
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(delivery.id));
    const history = await handle.fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    expect(Object.keys(started?.header?.fields ?? {})).toContain('_tracer-data');
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('bundlePath') }, sinks: workflowTracingSinks() },
      history,
      handle.workflowId,
    );
  });
});
