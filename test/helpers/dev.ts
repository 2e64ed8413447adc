// `npm run dev` as a developer runs it, for the tests that need the whole dev stack (test/platform/dev.test.ts,
// test/system/quickstart.test.ts): its own free ports, data folder and database; started in its own process group, as a
// terminal does; stopped by killing that group whatever happened.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { dropDatabase } from '../../scripts/lib/postgres.js';
import { isListening } from '../../scripts/lib/net.js';

export interface Dev {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

export interface DevSetup {
  env: NodeJS.ProcessEnv;
  ports: {
    api: number;
    temporal: number;
    ui: number;
    simulator: number;
    metrics: number;
    workerMetrics: number;
    smscSmpp: number;
    smscHttp: number;
  };
  /** Starts `npm run dev` and resolves once it prints that the API runs. */
  start(): Promise<Dev>;
  /** Kills whatever a run left in its process groups, drops the database and the data folder. */
  cleanUp(): Promise<void>;
}

/** Free ports below the kernel's ephemeral range (32768+), a data folder and a database named after `name`. */
export async function devSetup(name: string): Promise<DevSetup> {
  // Below the ephemeral range: a port the OS hands out as free there can be taken as the source port of some outgoing
  // connection before the stack binds it (Temporal once failed to start so).
  const base = 20_000 + Math.floor(Math.random() * 1_000) * 10;
  const free: number[] = [];
  for (let port = base; port < base + 10; port++) if (!(await isListening(port))) free.push(port);
  const ports = {
    api: free[0],
    temporal: free[1],
    ui: free[2],
    simulator: free[3],
    metrics: free[4],
    workerMetrics: free[5],
    smscSmpp: free[6],
    smscHttp: free[7],
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `delivery-${name}-`));
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${url.pathname.slice(1)}_${name}`;
  const databaseUrl = url.toString();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(ports.api),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    SIMULATOR_PORT: String(ports.simulator),
    METRICS_PORT: String(ports.metrics),
    WORKER_METRICS_PORT: String(ports.workerMetrics),
    SMSC_SMPP_PORT: String(ports.smscSmpp),
    SMSC_HTTP_PORT: String(ports.smscHttp),
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
  };
  delete env.TEMPORAL_ADDRESS; // the dev command must start its own Temporal
  delete env.SMPP_URL; // and its own SMSC simulator
  delete env.NODE_OPTIONS; // vitest's own loader options must not leak into the stack
  const running: Dev[] = [];

  return {
    env,
    ports,
    async start() {
      const child = spawn('npm', ['run', 'dev'], {
        cwd: ROOT_DIR,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
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
    },
    async cleanUp() {
      for (const dev of running) {
        try {
          process.kill(-dev.child.pid!, 'SIGKILL');
        } catch {
          // the group is empty: nothing left
        }
      }
      await dropDatabase(databaseUrl).catch(() => {});
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The demo tenant's secret key in what `npm run dev` printed. */
export const printedSecretKey = (out: string) => /Secret key\s+(sk_live_\w+)/.exec(out)?.[1];
