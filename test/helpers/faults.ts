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
  /**
   * The toxics come and go: on for `onMs`, off for `offMs`, over and over. A toxic decides once per connection whether
   * it applies, and the processes keep their connections (keep-alive, pools, one gRPC channel): pulsing hits every
   * connection, the ones already open included, for a while, and lets the retries through in between. Each on and off
   * lasts from half to one and a half times its figure (at random), so that the steps of a delivery (quote, creation,
   * booking, events, webhooks) do not fall in step with the pulses.
   */
  pulse?: { onMs: number; offMs: number };
}

const everyLink = (toxic: Toxic): Fault['toxics'] => Object.fromEntries(LINKS.map((link) => [link, [toxic]]));

/**
 * The faults, one phase each. Toxicity is per connection: a fault that stops a connection hits a share of them, so
 * that the retries on new connections can get through.
 */
export const FAULTS: Fault[] = [
  // 500 ms +- 250 on every answer of every link.
  {
    name: 'latency',
    toxics: everyLink({
      type: 'latency',
      stream: 'downstream',
      toxicity: 1,
      attributes: { latency: 500, jitter: 250 },
    }),
  },
  // Every answer through a 32 KB/s pipe, and requests through 32 KB/s too.
  {
    name: 'bandwidth',
    toxics: Object.fromEntries(
      LINKS.map((link) => [
        link,
        (['downstream', 'upstream'] as const).map((stream) => ({
          type: 'bandwidth' as const,
          stream,
          toxicity: 1,
          attributes: { rate: 32 },
        })),
      ]),
    ),
  },
  // Every connection goes silent (the requests pass, no answer comes back) and is closed after 2.5 s, past the
  // courier calls' 2 s limit; then calm.
  {
    name: 'timeout',
    toxics: everyLink({ type: 'timeout', stream: 'downstream', toxicity: 1, attributes: { timeout: 2500 } }),
    pulse: { onMs: 2000, offMs: 5000 },
  },
  // Every connection is reset (TCP RST) 100 ms into the toxic, in the middle of whatever answer is under way.
  {
    name: 'reset mid-answer',
    toxics: everyLink({ type: 'reset_peer', stream: 'downstream', toxicity: 1, attributes: { timeout: 100 } }),
    pulse: { onMs: 400, offMs: 2000 },
  },
  // The couriers and the receiver get the requests (the courier books, the merchant takes the webhook) and their
  // answers are lost: the connection closes before the first byte comes back.
  {
    name: 'lost answers',
    toxics: {
      courier: [{ type: 'limit_data', stream: 'downstream', toxicity: 1, attributes: { bytes: 0 } }],
      webhook: [{ type: 'limit_data', stream: 'downstream', toxicity: 1, attributes: { bytes: 0 } }],
    },
    pulse: { onMs: 800, offMs: 800 },
  },
];

/**
 * Puts a fault on until `stop()`, which removes every toxic and returns how many times toxics were put on a link.
 * With a pulse, each link pulses on a schedule of its own: a fault on the courier link is not always a fault on the
 * Postgres and Temporal links too (when every link goes down at once, a delivery's booking waits for the calm).
 */
export function startFault(proxies: FaultProxies, fault: Fault): { stop(): Promise<number> } {
  let on = true;
  let pulses = 0;
  let stopped = () => {};
  const stopping = new Promise<void>((r) => (stopped = r));
  const nap = (ms: number) =>
    Promise.race([stopping, new Promise<void>((r) => setTimeout(r, ms * (0.5 + Math.random())))]);
  const running = (Object.entries(fault.toxics) as [Link, Toxic[]][]).map(async ([link, toxics]) => {
    if (fault.pulse) await nap(fault.pulse.offMs); // links start out of step
    while (on) {
      const added = [];
      for (const [i, toxic] of toxics.entries())
        added.push(await proxies.proxies[link].addToxic({ ...toxic, name: `${fault.name}-${link}-${i}` }));
      pulses++;
      if (!fault.pulse) return;
      await nap(fault.pulse.onMs);
      for (const toxic of added) await toxic.remove();
      if (on) await nap(fault.pulse.offMs);
    }
  });
  return {
    async stop() {
      on = false;
      stopped();
      await Promise.all(running);
      await proxies.clear();
      return pulses;
    },
  };
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
