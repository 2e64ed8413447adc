// The network-fault test's Toxiproxy pieces (test/faults): one proxy per link between the service's processes and
// what they call (couriers, the merchant's webhook receiver, Postgres, the Temporal frontend), the faults added to
// them one kind at a time, and what the courier simulator saw of the bookings.
import path from 'node:path';
import { expect } from 'vitest';
import { Toxiproxy, type ICreateToxicBody, type Proxy } from 'toxiproxy-node-client';
import type { Simulator } from '../../simulator/server.js';
import { freePort } from '../../scripts/lib/net.js';
import type { Proc } from '../../scripts/lib/processes.js';
import { startToxiproxy } from '../../scripts/lib/toxiproxy.js';

export const LINKS = ['courier', 'webhook', 'postgres', 'temporal'] as const;
export type Link = (typeof LINKS)[number];

export interface FaultProxies {
  toxiproxy: Toxiproxy;
  server: Proc;
  proxies: Record<Link, Proxy>;
  /** `127.0.0.1:<port>`: where the service's processes connect for each link. */
  listen: Record<Link, string>;
  /** Points a link at its upstream (`host:port`); the courier simulator's port is known only once it runs. */
  setUpstream(link: Link, upstream: string): Promise<void>;
  /** Removes every toxic. */
  clear(): Promise<void>;
}

/** Starts Toxiproxy and one proxy per link (upstreams as given; `setUpstream` later for those not known yet). */
export async function startFaultProxies(dir: string, upstreams: Record<Link, string>): Promise<FaultProxies> {
  const apiPort = await freePort();
  const server = await startToxiproxy(apiPort, path.join(dir, 'toxiproxy.log'));
  const toxiproxy = new Toxiproxy(`http://127.0.0.1:${apiPort}`);
  const proxies = {} as Record<Link, Proxy>;
  const listen = {} as Record<Link, string>;
  for (const link of LINKS) {
    listen[link] = `127.0.0.1:${await freePort()}`;
    proxies[link] = await toxiproxy.createProxy({ name: link, listen: listen[link], upstream: upstreams[link] });
  }
  return {
    toxiproxy,
    server,
    proxies,
    listen,
    async setUpstream(link, upstream) {
      proxies[link] = await proxies[link].update({ enabled: true, listen: listen[link], upstream });
    },
    clear: () => toxiproxy.reset(),
  };
}

type Toxic = Omit<ICreateToxicBody<unknown>, 'name'>;

/** One kind of network fault: the toxics it adds to each link it touches. */
export interface Fault {
  name: string;
  toxics: Partial<Record<Link, Toxic[]>>;
}

const everyLink = (toxic: Toxic): Fault['toxics'] => Object.fromEntries(LINKS.map((link) => [link, [toxic]]));

/**
 * The faults, one phase each. Toxicity is per connection: a fault that stops a connection hits a share of them, so
 * that the retries on new connections can get through.
 */
export const FAULTS: Fault[] = [
  // 500 ms +- 250 on every answer of every link.
  { name: 'latency', toxics: everyLink({ type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 500, jitter: 250 } }) },
  // Every answer through a 32 KB/s pipe, and requests through 32 KB/s too.
  {
    name: 'bandwidth',
    toxics: Object.fromEntries(
      LINKS.map((link) => [
        link,
        (['downstream', 'upstream'] as const).map((stream) => ({ type: 'bandwidth' as const, stream, toxicity: 1, attributes: { rate: 32 } })),
      ]),
    ),
  },
  // A third of the connections go silent (nothing passes) and are closed after 3 s.
  { name: 'timeout', toxics: everyLink({ type: 'timeout', stream: 'downstream', toxicity: 0.33, attributes: { timeout: 3000 } }) },
  // A third of the connections are reset (TCP RST) 300 ms after they open, in the middle of whatever answer is under way.
  { name: 'reset mid-answer', toxics: everyLink({ type: 'reset_peer', stream: 'downstream', toxicity: 0.33, attributes: { timeout: 300 } }) },
  // Half of the connections to the couriers and the receiver carry the request (the courier books, the merchant takes the
  // webhook) and lose the answer: the connection closes before its first byte comes back.
  {
    name: 'lost answers',
    toxics: {
      courier: [{ type: 'limit_data', stream: 'downstream', toxicity: 0.5, attributes: { bytes: 0 } }],
      webhook: [{ type: 'limit_data', stream: 'downstream', toxicity: 0.5, attributes: { bytes: 0 } }],
    },
  },
];

/** Adds a fault's toxics. */
export async function applyFault(proxies: FaultProxies, fault: Fault): Promise<void> {
  for (const [link, toxics] of Object.entries(fault.toxics) as [Link, Toxic[]][]) {
    for (const [i, toxic] of toxics.entries()) await proxies.proxies[link].addToxic({ ...toxic, name: `${fault.name}-${link}-${i}` });
  }
}

/** What the couriers saw of the bookings so far: booking calls received and jobs they made. */
export function bookingCounts(sim: Simulator): { calls: number; jobs: number } {
  const slugs = sim.control.companies().map((c) => c.slug);
  return {
    calls: slugs.reduce((n, slug) => n + sim.control.stats(slug).bookings, 0),
    jobs: slugs.reduce((n, slug) => n + sim.control.bookings(slug).length, 0),
  };
}

/**
 * Each courier made exactly one job per booking (`Idempotency-Key: <delivery id>.<booking number>`, across every
 * courier), and no delivery has two live (not cancelled) jobs. Returns the number of jobs.
 */
export function expectOneJobPerBooking(sim: Simulator): number {
  const jobs = sim.control.companies().flatMap((c) => sim.control.bookings(c.slug));
  const byKey = new Map<string, string[]>();
  const live = new Map<string, string[]>();
  for (const job of jobs) {
    expect(job.idempotency_key, job.tracking_ref).toMatch(new RegExp(`^${job.delivery_id}\\.\\d+$`));
    byKey.set(job.idempotency_key!, [...(byKey.get(job.idempotency_key!) ?? []), job.tracking_ref]);
    if (job.status !== 'cancelled') live.set(job.delivery_id, [...(live.get(job.delivery_id) ?? []), job.tracking_ref]);
  }
  expect([...byKey].filter(([, refs]) => refs.length > 1)).toEqual([]);
  expect([...live].filter(([, refs]) => refs.length > 1)).toEqual([]);
  return jobs.length;
}
