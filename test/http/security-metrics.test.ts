// Metrics listeners bind loopback unless told otherwise (issue #27, item 11): METRICS_HOST defaults to 127.0.0.1,
// whatever HOST says, and the production topology (docker-compose.yml) sets it explicitly where Prometheus scrapes.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ROOT_DIR, loadConfig } from '../../src/platform/config.js';
import { startMetricsServer } from '../../src/platform/observability/metrics-server.js';

/** Whether a TCP connection to host:port is accepted. */
const connects = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });

describe('metrics listeners', () => {
  it('METRICS_HOST defaults to 127.0.0.1, even with HOST=0.0.0.0; set, it is kept', () => {
    expect(loadConfig({}).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_HOST: '0.0.0.0' }).metricsHost).toBe('0.0.0.0');
    expect(loadConfig({ METRICS_HOST: '10.0.0.5' }).metricsHost).toBe('10.0.0.5');
  });

  it('the default listener answers on 127.0.0.1 only: not on another address of the machine (127.0.0.2, as 0.0.0.0 would)', async () => {
    const config = loadConfig({ HOST: '0.0.0.0' });
    const server = await startMetricsServer({ port: 0, host: config.metricsHost });
    try {
      const port = Number(new URL(server.url).port);
      expect(server.url).toBe(`http://127.0.0.1:${port}/metrics`);
      expect((await fetch(server.url)).status).toBe(200);
      // Every 127/8 address is this machine's own; a listener on 0.0.0.0 (the old default with HOST=0.0.0.0) takes
      // connections on all of them, one on 127.0.0.1 on that address only. No traffic leaves the machine.
      expect(await connects('127.0.0.2', port)).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('docker-compose.yml sets METRICS_HOST explicitly for every process with a metrics port', () => {
    const compose = parseYaml(fs.readFileSync(path.join(ROOT_DIR, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    const withMetrics = Object.entries(compose.services).filter(
      ([, s]) => s.environment?.METRICS_PORT || s.environment?.WORKER_METRICS_PORT,
    );
    expect(withMetrics.length).toBeGreaterThanOrEqual(4);
    for (const [name, service] of withMetrics) expect(service.environment?.METRICS_HOST, name).toBe('0.0.0.0');
  });
});
