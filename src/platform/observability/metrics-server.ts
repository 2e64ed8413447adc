// The metrics listener: `GET /metrics` on a port of its own, so the figures are never served on the public API port
// (docs/operations.md "Observability"). The API serves the process registry; the worker adds the Temporal SDK's own
// metrics (Temporal Core's Prometheus exporter, bound on loopback: src/platform/observability/temporal-runtime.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { registry } from './metrics.js';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Text of another Prometheus endpoint (Temporal Core's), or '' when it does not answer in time. */
async function scrape(url: string, timeoutMs = 2000): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok ? await res.text() : '';
  } catch {
    return '';
  }
}

/** `also`: further Prometheus endpoints whose series are served with this process's (the worker: Temporal Core's). */
export async function startMetricsServer(options: {
  port: number;
  host: string;
  also?: string[];
}): Promise<MetricsServer> {
  const server = http.createServer(async (req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    try {
      const parts = await Promise.all([registry.metrics(), ...(options.also ?? []).map((url) => scrape(url))]);
      res
        .writeHead(200, { 'content-type': registry.contentType })
        .end(parts.map((p) => (p.endsWith('\n') || p === '' ? p : `${p}\n`)).join(''));
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(err as Error).message}\n`);
    }
  });
  server.keepAliveTimeout = 65_000; // longer than Prometheus' scrape interval: one connection per scraper
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
