// `npm run dev`, as a developer (or a process manager) runs it: it brings the whole stack up and prints the
// keys and URLs; Ctrl-C stops every child; the next start reuses the data; a SIGTERM or SIGKILL to npm alone
// leaves nothing behind holding a port.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT_DIR } from '../src/config.js';
import { dropDatabase } from '../scripts/lib/postgres.js';
import { isListening } from '../scripts/lib/net.js';

interface Dev {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

let env: NodeJS.ProcessEnv;
let ports: { api: number; temporal: number; ui: number; simulator: number };
let dataDir: string;
let databaseUrl: string;
const running: Dev[] = [];

beforeAll(async () => {
  // Below the kernel's ephemeral range (32768+): a port the OS hands out as free there can be taken as the
  // source port of some outgoing connection before the stack binds it (Temporal once failed to start so).
  const base = 20_000 + Math.floor(Math.random() * 1_000) * 10;
  const candidates = Array.from({ length: 10 }, (_, i) => base + i);
  const free: number[] = [];
  for (const port of candidates) if (!(await isListening(port))) free.push(port);
  ports = { api: free[0], temporal: free[1], ui: free[2], simulator: free[3] };
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'delivery-dev-'));
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${url.pathname.slice(1)}_dev`;
  databaseUrl = url.toString();
  env = {
    ...process.env,
    PORT: String(ports.api),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    SIMULATOR_PORT: String(ports.simulator),
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
  };
  delete env.TEMPORAL_ADDRESS; // the dev command must start its own Temporal
  delete env.NODE_OPTIONS; // vitest's own loader options must not leak into the stack
});

afterAll(async () => {
  // Whatever a failed run left in the process groups (npm itself may be gone while its children are not).
  for (const dev of running) {
    try {
      process.kill(-dev.child.pid!, 'SIGKILL');
    } catch {
      // the group is empty: nothing left
    }
  }
  await dropDatabase(databaseUrl).catch(() => {});
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function startDev(): Promise<Dev> {
  // Its own process group, as a terminal gives it: Ctrl-C is a SIGINT to the whole group.
  const child = spawn('npm', ['run', 'dev'], { cwd: ROOT_DIR, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const dev: Dev = { child, output: () => out, exited };
  running.push(dev);
  const deadline = Date.now() + 150_000;
  while (!out.includes('The delivery API is running.')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm run dev did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return dev;
}

/** Every port of the stack closed, within the dev command's own shutdown budget. */
async function expectAllStopped() {
  const deadline = Date.now() + 30_000;
  const open = async () => (await Promise.all(Object.values(ports).map((port) => isListening(port)))).some(Boolean);
  while ((await open()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  expect(Object.fromEntries(await Promise.all(Object.entries(ports).map(async ([name, port]) => [name, await isListening(port)])))).toEqual({
    api: false,
    temporal: false,
    ui: false,
    simulator: false,
  });
}

const secretKey = (out: string) => /Secret key\s+(sk_live_\w+)/.exec(out)?.[1];

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

    // Ctrl-C: SIGINT to the process group.
    process.kill(-first.child.pid!, 'SIGINT');
    await first.exited;
    await expectAllStopped();

    // Second start: same data folder, same demo keys; then a SIGTERM to npm alone (a process manager stopping it).
    const second = await startDev();
    expect(secretKey(second.output())).toBe(key);
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
