// Hosts apart (#32 item 3): network namespaces standing for machines, created and removed by the test that uses them.
// Every host has a "data" link (veth) to the bridge dh-data (10.231.0.0/25, the network of Postgres and the Temporal
// frontend); the app hosts have an "edge" link as well, to the bridge dh-edge (10.231.0.128/25, towards the couriers,
// the merchant's receiver and the clients, all in the root namespace). The root namespace has an address on both
// bridges. Cutting an app host's data link (`ip link set dh-<host>-d down`, its root-side end) cuts exactly "Temporal
// and Postgres" for it: packets are dropped silently, as on a real partition, while its API stays reachable.
import { execFileSync } from 'node:child_process';

export const DATA_ROOT = '10.231.0.1';
export const EDGE_ROOT = '10.231.0.129';
const PREFIX = 'dh-';

export interface Host {
  name: string;
  /** The namespace's name. */
  ns: string;
  /** Its address on the data network. */
  data: string;
  /** Its address on the edge network (app hosts only). */
  edge?: string;
  /** The command prefix that runs a program inside the host: ['ip', 'netns', 'exec', ns]. */
  exec: string[];
}

export interface Hosts {
  hosts: Record<string, Host>;
  /** Cuts the host's data link (Postgres and Temporal unreachable to it) or heals it. */
  cut(name: string): void;
  heal(name: string): void;
  remove(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe', encoding: 'utf8' });

/** Fails (never skips) without root or without `ip`, saying so. */
export function requireNetns(): void {
  if (process.getuid?.() !== 0) {
    throw new Error(
      'The cluster test puts its processes on network namespaces (ip netns, veth pairs) and needs root. Next: run it as root (CI does).',
    );
  }
  try {
    ip('-V');
  } catch {
    throw new Error(
      'The cluster test needs the `ip` command (iproute2) for its network namespaces. Next: apt-get install iproute2.',
    );
  }
}

/** Removes every namespace and link this module creates (a stale set from a killed run included). */
export function removeHosts(): void {
  for (const line of ip('netns', 'list').split('\n')) {
    const ns = line.split(' ')[0];
    if (ns.startsWith(PREFIX)) ip('netns', 'delete', ns);
  }
  // Deleting a namespace takes its veth ends, and so their peers here, with it, but the kernel does it a moment later:
  // a link already gone by the time it is deleted is fine.
  for (const line of ip('-o', 'link', 'show').split('\n')) {
    const dev = line.split(': ')[1]?.split('@')[0];
    if (!dev?.startsWith(PREFIX)) continue;
    try {
      ip('link', 'delete', dev);
    } catch (err) {
      if (!/Cannot find device/.test(String((err as { stderr?: string }).stderr))) throw err;
    }
  }
}

/**
 * Creates the hosts: `data` hosts (on the data network only) and `app` hosts (data and edge), with addresses in the
 * order given (data .10 up, edge .150 up).
 */
export function createHosts(dataHosts: string[], appHosts: string[]): Hosts {
  requireNetns();
  removeHosts();
  const hosts: Record<string, Host> = {};
  try {
    for (const [bridge, address] of [
      ['dh-data', `${DATA_ROOT}/25`],
      ['dh-edge', `${EDGE_ROOT}/25`],
    ]) {
      ip('link', 'add', bridge, 'type', 'bridge');
      ip('addr', 'add', address, 'dev', bridge);
      ip('link', 'set', bridge, 'up');
    }
    const link = (ns: string, dev: string, bridge: string, address: string) => {
      ip('link', 'add', dev, 'type', 'veth', 'peer', 'name', `${dev}x`);
      ip('link', 'set', `${dev}x`, 'netns', ns);
      ip('-n', ns, 'link', 'set', `${dev}x`, 'name', bridge === 'dh-data' ? 'data0' : 'edge0');
      ip('-n', ns, 'addr', 'add', address, 'dev', bridge === 'dh-data' ? 'data0' : 'edge0');
      ip('-n', ns, 'link', 'set', bridge === 'dh-data' ? 'data0' : 'edge0', 'up');
      ip('link', 'set', dev, 'master', bridge);
      ip('link', 'set', dev, 'up');
    };
    [...dataHosts, ...appHosts].forEach((name, i) => {
      const ns = `${PREFIX}${name}`;
      ip('netns', 'add', ns);
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      const host: Host = { name, ns, data: `10.231.0.${10 + i}`, exec: ['ip', 'netns', 'exec', ns] };
      link(ns, `${PREFIX}${name}-d`, 'dh-data', `${host.data}/25`);
      if (appHosts.includes(name)) {
        host.edge = `10.231.0.${150 + i}`;
        link(ns, `${PREFIX}${name}-e`, 'dh-edge', `${host.edge}/25`);
      }
      hosts[name] = host;
    });
  } catch (err) {
    removeHosts();
    throw err;
  }
  return {
    hosts,
    cut: (name) => ip('link', 'set', `${PREFIX}${name}-d`, 'down'),
    heal: (name) => ip('link', 'set', `${PREFIX}${name}-d`, 'up'),
    remove: removeHosts,
  };
}
