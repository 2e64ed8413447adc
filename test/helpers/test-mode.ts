// Test mode on the real stack: quotes and deliveries made with a tenant's test keys (simulated test couriers), and a
// small webhook receiver that verifies every signature with the standardwebhooks library.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { quoteBody } from './fixtures.js';
import type { Stack } from './stack.js';

/** POST /v1/quotes with `key` (a test key: the simulated couriers answer) and return the entry of `slug`. */
export async function quoteFrom(stack: Stack, key: string, slug: string, body: Record<string, unknown> = quoteBody()) {
  const res = await stack.request('POST', '/v1/quotes', { key, body });
  if (res.status !== 200) throw new Error(`quote failed: ${res.status} ${JSON.stringify(res.body)}`);
  const entry = res.body.data.find((q: { company_slug: string }) => q.company_slug === slug);
  if (!entry)
    throw new Error(
      `no quote from ${slug}: ${JSON.stringify(res.body.data.map((q: { company_slug: string }) => q.company_slug))}`,
    );
  return entry as {
    quote_id: string;
    company_id: string;
    fee_aoa: number;
    livemode: boolean;
    require_delivery_pin: boolean;
  };
}

/** Quote with `slug` and create a delivery from it with `key`; returns the 201 body. */
export async function deliveryWith(stack: Stack, key: string, slug: string, extra: Record<string, unknown> = {}) {
  const q = await quoteFrom(stack, key, slug);
  const res = await stack.request('POST', '/v1/deliveries', {
    key,
    body: { quote_id: q.quote_id, ...quoteBody(), ...extra },
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls GET /v1/deliveries/{id} with `key` until `predicate` holds. */
export async function until(stack: Stack, key: string, id: string, predicate: (d: any) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = (await stack.request('GET', `/v1/deliveries/${id}`, { key })).body;
    if (predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `timed out; last: ${JSON.stringify({ status: last?.status, events: last?.events?.map((e: any) => e.event_type) })}`,
  );
}

export const types = (d: { events: { event_type: string }[] }) => d.events.map((e) => e.event_type);

export interface Hit {
  path: string;
  body: any;
}

/** A merchant's receiver on 127.0.0.1: keeps each verified message per path (`/live`, `/test`, ...), answers 200. */
export class VerifyingReceiver {
  private server!: http.Server;
  port = 0;
  readonly hits: Hit[] = [];
  readonly rejected: string[] = [];
  private readonly secrets = new Map<string, string>();

  async start() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const secret = this.secrets.get(path);
        try {
          if (!secret) throw new Error(`no secret for ${path}`);
          const body = new Webhook(secret).verify(
            Buffer.concat(chunks).toString('utf8'),
            req.headers as Record<string, string>,
          );
          this.hits.push({ path, body });
          res.writeHead(200).end('ok');
        } catch (err) {
          this.rejected.push(`${path}: ${(err as Error).message}`);
          res.writeHead(400).end();
        }
      });
    });
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string) {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Messages to `path` with the secret an endpoint registration answered. */
  expect(path: string, secret: string) {
    this.secrets.set(path, secret);
  }

  at(path: string, deliveryId?: string) {
    return this.hits.filter((h) => h.path === path && (!deliveryId || h.body.data.delivery.id === deliveryId));
  }

  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
