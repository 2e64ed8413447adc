// What the long-running commands (`npm run dev`, `npm run cluster`) share: step lines, the demo tenant and courier
// simulator, the children they start, and one clean stop on Ctrl-C, SIGTERM, a child's death or npm's.
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT_DIR } from '../../src/platform/config.js';
import { createPool } from '../../src/platform/db.js';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { createSimulator, type Simulator } from '../../simulator/server.js';
import { DEMO_SIMULATOR_COMPANIES } from '../../simulator/demo.js';
import { databaseUrlFor, ensureDatabase, migrate, resolvePostgres, type ResolvedPostgres } from './postgres.js';
import type { Proc } from './processes.js';
import { seedDemo, simulatorCouriers } from './seed.js';

export const step = (text: string) => console.log(`\x1b[36m==>\x1b[0m ${text}`);

export interface Supervisor {
  /** A Node child (`node <args>`) with an IPC channel, so it stops when this process is gone (src/platform/parent.ts). */
  node(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess;
  /** Stops the whole stack when `proc` exits on its own (its log file is named in the message). */
  watch(proc: Proc): void;
  /** Runs at stop, after the children are gone (last registered, first run). */
  onStop(fn: () => Promise<unknown>): void;
  /** Stops everything and exits with `code`. */
  shutdown(code: number): Promise<void>;
  /** Runs `main`; when it throws, prints `failure` and the error, and stops what was started. */
  run(main: () => Promise<void>, failure: string): void;
}

/** `command` is what the user typed (`npm run dev`): messages say to run it again. */
export function supervise(command: string): Supervisor {
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  let stopping = false;

  async function shutdown(code: number) {
    if (stopping) return;
    stopping = true;
    step('Stopping...');
    // Last started, first stopped: the APIs and workers before the Temporal services they talk to.
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
      await exited;
      clearTimeout(timer);
    }
    for (const fn of cleanups.reverse()) await fn().catch((err) => console.error(`    ${(err as Error).message}`));
    process.exit(code);
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
  // Under `npm run <script>` this process is npm's direct child (`exec` in the script). npm forwards SIGINT/SIGTERM;
  // if npm itself is killed without a chance to forward (SIGKILL), this process is re-parented: stop too, so
  // nothing is left holding the ports.
  if (command === `npm run ${process.env.npm_lifecycle_event}`) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) {
        console.error(`${command} was stopped: stopping the stack.`);
        void shutdown(0);
      }
    }, 1000).unref();
  }

  const adopt = (name: string, child: ChildProcess, logFile?: string) => {
    child.on('exit', (code, signal) => {
      if (stopping) return;
      const where = logFile ? ` (its log: ${logFile})` : '';
      console.error(
        `${name} exited (${signal ?? code})${where}. Stopping the stack; fix the error and run \`${command}\` again.`,
      );
      void shutdown(1);
    });
    children.push(child);
  };

  return {
    node(name, args, env) {
      const child = spawn(process.execPath, args, {
        cwd: ROOT_DIR,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      adopt(name, child);
      return child;
    },
    watch(proc) {
      adopt(proc.name, proc.child!, proc.options.logFile);
    },
    onStop(fn) {
      cleanups.push(fn);
    },
    shutdown,
    run(main, failure) {
      main().catch(async (err) => {
        console.error(`\n\x1b[31m${failure}:\x1b[0m ${(err as Error).message}`);
        await shutdown(1);
      });
    },
  };
}

/** Postgres as resolvePostgres finds it, and the application's database on it (DATABASE_URL, else `name`), migrated. */
export async function appDatabase(
  supervisor: Supervisor,
  name: string,
): Promise<{ pg: ResolvedPostgres; databaseUrl: string }> {
  step('Postgres');
  const pg = await resolvePostgres(step);
  supervisor.onStop(pg.stop);
  const databaseUrl = process.env.DATABASE_URL ?? databaseUrlFor(pg.serverUrl, name);
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  console.log(`    ${pg.source}: ${databaseUrl.replace(/:[^:@/]*@/, ':***@')} (migrated)`);
  return { pg, databaseUrl };
}

/** The courier simulator with the demo companies, and the demo tenant linked to every courier (keys kept in `dataDir`). */
export async function startDemo(
  supervisor: Supervisor,
  databaseUrl: string,
  dataDir: string,
  port: number,
): Promise<{ simulator: Simulator; demo: CreatedTenant }> {
  step(`Courier simulator (port ${port}, SIMULATOR_PORT)`);
  const simulator = await createSimulator({
    port,
    companies: DEMO_SIMULATOR_COMPANIES,
    log: (line) => console.log(`    [simulator] ${line}`),
  });
  supervisor.onStop(() => simulator.close());

  step('Demo tenant and couriers');
  const pool = createPool(databaseUrl, 2);
  const demo = await seedDemo(pool, dataDir, simulatorCouriers(simulator.url));
  await pool.end();
  return { simulator, demo };
}

/** The lines every command prints once the stack is up: where things are, the demo keys, a first request. */
export function printReady(lines: {
  title: string;
  apiUrl: string;
  rows: [string, string][];
  demo: CreatedTenant;
  simulator: Simulator;
  footer: string;
}) {
  const { apiUrl, demo, simulator } = lines;
  const rows: [string, string][] = [
    ...lines.rows,
    [
      'Simulator',
      `${simulator.url}   (couriers ${DEMO_SIMULATOR_COMPANIES.map((c) => c.slug).join(', ')}; control: /_control/companies)`,
    ],
  ];
  console.log(`
\x1b[32m${lines.title}\x1b[0m
${rows.map(([name, value]) => `  ${name.padEnd(15)} ${value}`).join('\n')}

  Demo tenant     ${demo.tenant_id}
  Secret key      ${demo.secret_key}
  Publishable key ${demo.publishable_key}   (origins: http://localhost:3000, http://localhost:5173)
  Test keys       ${demo.test_secret_key}   ${demo.test_publishable_key}   (test mode: docs/test-mode.md)

  Try: curl -H "Authorization: Bearer ${demo.secret_key}" ${apiUrl}/v1/couriers
  ${lines.footer}
`);
}
