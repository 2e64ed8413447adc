// The API process.
import { pathToFileURL } from 'node:url';
import { buildApp } from './app.js';
import { loadConfig } from './platform/config.js';
import { createPool } from './platform/db.js';
import { onParentExit } from './platform/parent.js';
import { startMetricsServer } from './platform/observability/metrics-server.js';
import { startTracing, stopTracing } from './platform/observability/tracing.js';
import { connectTemporal } from './platform/temporal.js';

async function main() {
  const config = loadConfig();
  // Traces when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/platform/observability/tracing.ts); before the first request.
  await startTracing('delivery-api');
  const pool = createPool(config.databaseUrl, config.apiDatabasePoolSize, {
    preparedStatements: config.databasePreparedStatements,
  });
  const temporal = await connectTemporal(config);
  const app = await buildApp({ config, pool, temporal });
  // Prometheus metrics on their own port, never on the public API port (docs/operations.md "Observability").
  const metrics =
    config.metricsPort !== undefined
      ? await startMetricsServer({ port: config.metricsPort, host: config.metricsHost })
      : null;
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await metrics?.close();
    await stopTracing();
    await pool.end();
    await temporal.connection.close();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  onParentExit(shutdown);
  await app.listen({ port: config.port, host: config.host });
  if (metrics) app.log.info({ url: metrics.url }, 'API metrics listening');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error('API failed to start:', err);
    console.error('Is Postgres reachable at DATABASE_URL and Temporal at TEMPORAL_ADDRESS? `npm run dev` starts both.');
    process.exit(1);
  });
}
