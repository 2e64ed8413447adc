// The SMSC simulator: an SMPP 3.4 server (./smsc.ts, npm `smpp`'s server side) and its JSON control API over HTTP
// (./control.ts). `npm run smsc` runs it alone (./main.ts), `npm run dev` starts it beside the courier simulator, and
// test/helpers/smsc.ts starts one per test file on free ports. docs/recipients.md "The SMSC simulator".
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import smpp from 'smpp';
import { smscControlRoutes } from './control.js';
import { SmscSimulation, type SmscConfig, type SmscMessage } from './smsc.js';

export type { SmscMessage } from './smsc.js';

export interface SmscOptions extends Partial<SmscConfig> {
  /** SMPP port (0: a free one). */
  smppPort?: number;
  /** Control API port (0: a free one). */
  httpPort?: number;
  host?: string;
  log?: (line: string) => void;
}

export interface Smsc {
  /** smpp://system_id:password@host:port, what SMPP_URL takes. */
  smppUrl: string;
  smppPort: number;
  /** The control API's base URL (routes under /_control). */
  controlUrl: string;
  simulation: SmscSimulation;
  messages(filter?: { to?: string }): SmscMessage[];
  close(): Promise<void>;
}

export const SMSC_DEFAULTS: SmscConfig = {
  systemId: 'entregas',
  password: 'smsc-dev',
  receiptDelayMs: 200,
  undeliverable: null,
  answerEnquireLink: true,
};

export async function createSmsc(options: SmscOptions = {}): Promise<Smsc> {
  const host = options.host ?? '127.0.0.1';
  const simulation = new SmscSimulation(
    {
      systemId: options.systemId ?? SMSC_DEFAULTS.systemId,
      password: options.password ?? SMSC_DEFAULTS.password,
      receiptDelayMs: options.receiptDelayMs ?? SMSC_DEFAULTS.receiptDelayMs,
      undeliverable: options.undeliverable ?? SMSC_DEFAULTS.undeliverable,
      answerEnquireLink: options.answerEnquireLink ?? true,
    },
    options.log,
  );
  const server = smpp.createServer({}, (session) => simulation.attach(session));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.smppPort ?? 2775, host, () => resolve());
  });
  const smppPort = (server.address() as AddressInfo).port;

  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.get('/', () => ({ simulator: 'smsc', smpp_port: smppPort, system_id: simulation.config.systemId }));
  smscControlRoutes(app, simulation);
  await app.listen({ port: options.httpPort ?? 0, host });
  const httpPort = (app.server.address() as AddressInfo).port;

  const { systemId, password } = simulation.config;
  const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    smppUrl: `smpp://${encodeURIComponent(systemId)}:${encodeURIComponent(password)}@${shownHost}:${smppPort}`,
    smppPort,
    controlUrl: `http://${shownHost}:${httpPort}`,
    simulation,
    messages: (filter) => simulation.list(filter),
    async close() {
      simulation.stop();
      await app.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
