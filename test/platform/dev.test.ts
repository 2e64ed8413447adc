// `npm run dev`, as a developer (or a process manager) runs it: it brings the whole stack up and prints the
// keys and URLs; Ctrl-C stops every child; the next start reuses the data; a SIGTERM or SIGKILL to npm alone
// leaves nothing behind holding a port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isListening } from '../../scripts/lib/net.js';
import { devSetup, printedSecretKey as secretKey, type Dev, type DevSetup } from '../helpers/dev.js';

let dev: DevSetup;
let ports: DevSetup['ports'];
const startDev = (): Promise<Dev> => dev.start();

beforeAll(async () => {
  dev = await devSetup('dev');
  ports = dev.ports;
});

// Whatever a failed run left in the process groups (npm itself may be gone while its children are not).
afterAll(() => dev?.cleanUp());

/** Every port of the stack closed, within the dev command's own shutdown budget. */
async function expectAllStopped() {
  const deadline = Date.now() + 30_000;
  const open = async () => (await Promise.all(Object.values(ports).map((port) => isListening(port)))).some(Boolean);
  while ((await open()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  expect(
    Object.fromEntries(
      await Promise.all(Object.entries(ports).map(async ([name, port]) => [name, await isListening(port)])),
    ),
  ).toEqual({
    api: false,
    temporal: false,
    ui: false,
    simulator: false,
    metrics: false,
    workerMetrics: false,
    smscSmpp: false,
    smscHttp: false,
  });
}

describe('npm run dev', () => {
  it('brings up the stack and prints the keys and URLs; Ctrl-C stops everything; the next start reuses the data; npm killed alone stops it too', async () => {
    const first = await startDev();
    const out = first.output();
    const key = secretKey(out)!;
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(out).toMatch(/Publishable key\s+pk_live_[0-9A-Za-z]{32}/);
    expect(out).toContain(`http://localhost:${ports.api}/docs`);
    expect(out).toContain(`http://localhost:${ports.ui}`);

    const api = `http://127.0.0.1:${ports.api}`;
    const couriers = await fetch(`${api}/v1/couriers`, { headers: { authorization: `Bearer ${key}` } });
    expect(couriers.status).toBe(200);
    expect(((await couriers.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    expect((await fetch(`${api}/readyz`)).status).toBe(200);
    expect((await fetch(`${api}/docs`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);
    // The dashboard it printed, and the demo owner's sign-in (docs/dashboard.md).
    const dashboard = /Dashboard\s+(http:\/\/localhost:\d+\/dashboard)\s+\(sign in: (\S+) \/ (\S+), an owner\)/.exec(
      out,
    )!;
    expect(dashboard[1]).toBe(`http://localhost:${ports.api}/dashboard`);
    expect((await fetch(`${api}/dashboard`)).headers.get('content-type')).toBe('text/html; charset=utf-8');
    const signIn = await fetch(`${api}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: dashboard[2], password: dashboard[3] }),
    });
    expect(signIn.status).toBe(201);
    // The metrics URLs it printed answer: the API's requests, the worker's series with the Temporal SDK's.
    expect(out).toContain(`http://localhost:${ports.metrics}/metrics`);
    expect(out).toContain(`http://localhost:${ports.workerMetrics}/metrics`);
    expect(await (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text()).toMatch(
      /^http_requests_total\{method="GET",route="\/v1\/couriers",status_code="200"\} [1-9]/m,
    );
    expect(await (await fetch(`http://127.0.0.1:${ports.workerMetrics}/metrics`)).text()).toMatch(
      /^temporal_worker_task_slots_available\{/m,
    );
    // The SMSC simulator it started for recipients' SMS (docs/recipients.md): its control API answers.
    expect(out).toContain(`http://127.0.0.1:${ports.smscHttp}/_control/messages`);
    expect(await (await fetch(`http://127.0.0.1:${ports.smscHttp}/_control/status`)).json()).toMatchObject({
      config: { systemId: 'entregas' },
    });

    // Ctrl-C: SIGINT to the process group.
    process.kill(-first.child.pid!, 'SIGINT');
    await first.exited;
    await expectAllStopped();

    // Second start: same data folder, same demo keys; then a SIGTERM to npm alone (a process manager stopping it).
    const second = await startDev();
    expect(secretKey(second.output())).toBe(key);
    expect(second.output()).toContain(`(sign in: ${dashboard[2]} / ${dashboard[3]}, an owner)`);
    expect((await fetch(`${api}/v1/couriers`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    second.child.kill('SIGTERM');
    await second.exited;
    await expectAllStopped();

    // npm SIGKILLed: it cannot forward anything, the dev process notices and stops the stack.
    const third = await startDev();
    third.child.kill('SIGKILL');
    await third.exited;
    await expectAllStopped();
  }, 600_000);
});
