// Small network helpers for the scripts, tests and benchmarks: pick a free port (src/platform/net.ts), wait for one to answer.
import net from 'node:net';

export { freePort, freePorts } from '../../src/platform/net.js';

/** Whether something accepts connections on host:port right now. */
export function isListening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => (socket.destroy(), resolve(false)));
  });
}

export async function waitForPort(port: number, host: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isListening(port, host))) {
    if (Date.now() > deadline) throw new Error(`Nothing listens on ${host}:${port} after ${timeoutMs / 1000} s.`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
