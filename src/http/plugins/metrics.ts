// Request metrics of the API (src/platform/observability/metrics.ts): every answer is counted and timed by method, the
// matched route pattern (`/v1/deliveries/:id`, never the raw URL: ids would make a series per delivery; no route is
// "unmatched") and status code. The figures are served on a port of their own (METRICS_PORT, src/server.ts); only
// where a second port cannot be reached, on this port to `Authorization: Bearer <METRICS_TOKEN>` (otherwise 404).
import fp from 'fastify-plugin';
import { hashKey, sameHash } from '../../platform/secrets.js';
import { unauthorized } from '../problem.js';
import { httpRequestDuration, httpRequests, registry } from '../../platform/observability/metrics.js';
import { httpRouteNamer } from '../../platform/observability/tracing.js';

export default fp(async (app, opts: { token?: string }) => {
  // With tracing on, the request's span is named after its route pattern too (the HTTP instrumentation knows only the URL).
  const nameSpan = httpRouteNamer();
  if (nameSpan) {
    app.addHook('onRequest', async (request) => {
      if (request.routeOptions.url) nameSpan(request.routeOptions.url);
    });
  }
  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    httpRequests.inc(labels);
    httpRequestDuration.observe(labels, reply.elapsedTime / 1000);
  });

  if (!opts.token) return;
  const tokenHash = hashKey(opts.token);
  app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match || !sameHash(hashKey(match[1]), tokenHash))
      throw unauthorized('GET /metrics takes the metrics token: "Authorization: Bearer <METRICS_TOKEN>".');
    reply.header('content-type', registry.contentType).header('cache-control', 'no-store');
    return registry.metrics();
  });
});
