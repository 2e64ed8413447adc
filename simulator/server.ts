// The courier simulator: one real HTTP server (Fastify) speaking the courier protocol of design.md for several
// simulated courier companies at once, each under its own path prefix (./protocol.ts). After a booking it can drive
// the job by itself ("auto-progress"): signed fleet events to the booking's callback_url (./simulation.ts). A control
// API under /_control (./control.ts) changes behaviour at run time and sends single fleet events on demand.
// docs/quotes.md ("Courier simulator") documents all of it.
import Fastify, { type FastifyError } from 'fastify';
import type { AddressInfo } from 'node:net';
import { controlRoutes } from './control.js';
import { protocolRoutes, send } from './protocol.js';
import { HttpError, Simulation } from './simulation.js';
import type { Simulator, SimulatorOptions } from './types.js';

export { newFleetSecret, signFleetEvent } from './simulation.js';
export type * from './types.js';

export async function createSimulator(options: SimulatorOptions): Promise<Simulator> {
  const sim = new Simulation(options);
  const app = Fastify({
    logger: false,
    keepAliveTimeout: 65_000,
    // close() drops every connection, a hanging call's included.
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
  });
  // Every body is JSON whatever its content type (callers and tests send it bare too); none is undefined.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, raw, done) => {
    try {
      done(null, raw ? JSON.parse(raw as string) : undefined);
    } catch {
      done(new HttpError(400, 'invalid_json'));
    }
  });
  app.setErrorHandler((err: FastifyError | HttpError, _request, reply) => {
    if (err instanceof HttpError)
      return send(reply, err.status, err.message ? { error: err.code, detail: err.message } : { error: err.code });
    if (err.statusCode && err.statusCode < 500)
      return send(reply, err.statusCode, { error: err.code ?? 'bad_request' });
    sim.log(`error: ${err.stack}`);
    return send(reply, 500, { error: 'simulator_error', detail: err.message });
  });
  // No route: an unknown company, or a path that is not one of the protocol's (or the control API's).
  app.setNotFoundHandler((request) => {
    const [first] = new URL(request.url, 'http://simulator').pathname.split('/').filter(Boolean);
    if (first === '_control') throw new HttpError(404, 'not_found', 'No such control route.');
    sim.company(decodeURIComponent(first));
    throw new HttpError(404, 'not_found', 'Not a courier protocol route.');
  });
  app.get('/', (_request, reply) => send(reply, 200, { simulator: 'courier', companies: [...sim.companies.keys()] }));
  protocolRoutes(app, sim);
  controlRoutes(app, sim);

  await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
  const url = `http://${host}:${port}`;
  return {
    url,
    port,
    endpoint: (slug) => `${url}/${slug}`,
    control: sim.control(),
    async close() {
      sim.stop();
      await app.close();
    },
  };
}
