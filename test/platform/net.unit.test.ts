// src/platform/net.ts: the ports handed to processes that start together are all different and free.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, freePorts } from '../../src/platform/net.js';

const listenOn = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('free ports', () => {
  it('freePorts(n): n different ports, each free once they are handed out', async () => {
    for (let round = 0; round < 20; round++) {
      const ports = await freePorts(4);
      expect(new Set(ports).size).toBe(4);
      const servers = await Promise.all(ports.map(listenOn));
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    }
  });

  it('freePort: one free port', async () => {
    const server = await listenOn(await freePort());
    await new Promise((r) => server.close(r));
  });
});
