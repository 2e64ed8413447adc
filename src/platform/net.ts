// Network helpers shared by src/, the scripts, tests and benchmarks (src/ may not import scripts/).
import net from 'node:net';

/** A free TCP port on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port;
}

/**
 * `count` free TCP ports on 127.0.0.1, all different: each is held until every one is picked (one after the other,
 * a port just let go may be picked again: two processes given the same port, one fails with EADDRINUSE).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => net.createServer());
  try {
    return await Promise.all(
      servers.map(
        (server) =>
          new Promise<number>((resolve, reject) => {
            server.once('error', reject);
            server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
          }),
      ),
    );
  } finally {
    await Promise.all(
      servers.map(
        (server) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
      ),
    );
  }
}
