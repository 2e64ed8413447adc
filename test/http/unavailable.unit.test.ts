// A dependency's outage is 503 `service_unavailable` with Retry-After, never 500 (src/http/unavailable.ts,
// src/http/plugins/errors.ts): the real pg pool and Temporal client against sockets that refuse, hang up or never
// answer, on this machine's loopback (no Postgres, no Temporal server: the unit tier).
import Fastify, { type FastifyInstance } from 'fastify';
import net from 'node:net';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import errorsPlugin from '../../src/http/plugins/errors.js';
import { isDependencyOutage } from '../../src/http/unavailable.js';

const BASE = 'https://api.example.test';
let app: FastifyInstance;
const servers: net.Server[] = [];
const pools: pg.Pool[] = [];
let temporal: Connection;

/** A TCP server on a free loopback port that does `onSocket` with each connection. */
async function tcpServer(onSocket: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer(onSocket);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

function pool(port: number): pg.Pool {
  const p = new pg.Pool({ host: '127.0.0.1', port, user: 'x', database: 'x', connectionTimeoutMillis: 300 });
  p.on('error', () => {});
  pools.push(p);
  return p;
}

beforeAll(async () => {
  const refused = await tcpServer(() => {});
  servers.pop()!.close(); // the port is free again: nothing listens there
  const hangsUp = await tcpServer((socket) => socket.destroy());
  const silent = await tcpServer(() => {}); // accepts and never answers
  temporal = Connection.lazy({ address: `127.0.0.1:${refused}` });
  const workflows = new Client({ connection: temporal }).workflow;

  app = Fastify({ logger: false });
  await app.register(errorsPlugin, { baseUrl: BASE });
  app.get('/refused', async () => (await pool(refused).query('SELECT 1')).rows);
  app.get('/hangs-up', async () => (await pool(hangsUp).query('SELECT 1')).rows);
  app.get('/silent', async () => (await pool(silent).query('SELECT 1')).rows);
  app.get('/temporal', () =>
    temporal.withDeadline(Date.now() + 500, () => workflows.getHandle('delivery-x').signal('fleetEvent', {})),
  );
  app.get('/boom', async () => {
    throw new Error('Cannot read properties of undefined');
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await Promise.all(pools.map((p) => p.end()));
  await temporal?.close();
  for (const s of servers) s.close();
});

describe('a dependency that does not answer is 503 service_unavailable with Retry-After', () => {
  it.each([
    ['/refused', 'Postgres refuses the connection'],
    ['/hangs-up', 'Postgres hangs up at once'],
    ['/silent', 'Postgres never answers (the pool gives up connecting)'],
    ['/temporal', 'the Temporal frontend is unreachable (past the deadline)'],
  ])('%s: %s', async (url) => {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json()).toMatchObject({
      type: `${BASE}/errors/service_unavailable`,
      status: 503,
      error: 'service_unavailable',
      title: 'Service unavailable',
    });
  });

  it('a bug is still 500 internal_error', async () => {
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect([res.statusCode, res.json().error]).toEqual([500, 'internal_error']);
  });
});

describe('isDependencyOutage', () => {
  const pgError = (code: string) => Object.assign(new pg.DatabaseError('x', 1, 'error'), { code });

  it("Postgres's restart, shutdown, full server and statement timeout are outages", () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300', '57014'])
      expect(isDependencyOutage(pgError(code)), code).toBe(true);
  });

  it("a statement's own error (a missing table, a violated constraint, bad input) is not", () => {
    for (const code of ['42P01', '23505', '22P02', '40001'])
      expect(isDependencyOutage(pgError(code)), code).toBe(false);
    expect(isDependencyOutage('ECONNREFUSED')).toBe(false);
    expect(isDependencyOutage(new Error('Connection was fine'))).toBe(false);
  });
});
