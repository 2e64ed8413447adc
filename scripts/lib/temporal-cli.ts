// Finds the Temporal CLI, or builds the pinned version from the Go module proxy, and starts its dev server.
//
// Pin: v1.5.1 (Temporal Server 1.29.1, UI 2.42.1). It is the newest CLI whose go.mod has no `replace`
// directive, so a plain `go install ...@v1.5.1` builds it; v1.6+ would need a tool module of our own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT_DIR } from '../../src/platform/config.js';
import { devServerSearchAttributeArgs } from '../../shared/search-attributes.js';
import { goInstall, isExecutable, onPath, userCacheDir } from './go-install.js';
import { waitForPort } from './net.js';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;
const LOCAL_BIN = path.join(ROOT_DIR, '.tools', 'bin', 'temporal');
const CACHE_DIR = userCacheDir(`temporal-${TEMPORAL_CLI_VERSION}`);
const CACHED_BIN = path.join(CACHE_DIR, 'temporal');

/** `TEMPORAL_CLI`, then `temporal` on PATH, then .tools/bin, then the per-user cache; else builds it with Go. */
export async function ensureTemporalCli(log: (line: string) => void = console.log): Promise<string> {
  const explicit = process.env.TEMPORAL_CLI;
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`TEMPORAL_CLI=${explicit} is not an executable file.`);
    return explicit;
  }
  const found = onPath('temporal') ?? (isExecutable(LOCAL_BIN) ? LOCAL_BIN : null);
  if (found) return found;
  if (!isExecutable(CACHED_BIN)) {
    await goInstall(
      {
        what: `the Temporal CLI ${TEMPORAL_CLI_VERSION}`,
        packages: [MODULE],
        dir: CACHE_DIR,
        otherwise:
          'or install the Temporal CLI (https://docs.temporal.io/cli) and put `temporal` on PATH or set TEMPORAL_CLI,\n' +
          '  or point TEMPORAL_ADDRESS at a running Temporal server.',
      },
      log,
    );
  }
  fs.mkdirSync(path.dirname(LOCAL_BIN), { recursive: true });
  fs.copyFileSync(CACHED_BIN, LOCAL_BIN);
  fs.chmodSync(LOCAL_BIN, 0o755);
  return LOCAL_BIN;
}

export interface DevServerOptions {
  port: number;
  uiPort?: number;
  headless?: boolean;
  dbFile?: string;
  namespace?: string;
  logFile?: string;
}

export interface DevServer {
  address: string;
  uiUrl: string | null;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `history.maximumBufferedEventsBatch` of every server we run (the dev server here, the cluster's dynamic config). */
export const MAX_BUFFERED_EVENTS = 2000;

export async function startTemporalDevServer(options: DevServerOptions): Promise<DevServer> {
  const cli = await ensureTemporalCli();
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    options.namespace ?? 'default',
    '--log-level',
    'warn',
  ];
  args.push(...devServerSearchAttributeArgs());
  if (options.dbFile) {
    fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  if (options.headless) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort ?? options.port + 1000));
  // The dev server's single history shard polls its task queues at most 20 times a second by default, which puts
  // every workflow hop on a 50 ms step; let it poll as fast as work arrives.
  for (const key of [
    'history.transferProcessorMaxPollRPS',
    'history.timerProcessorMaxPollRPS',
    'history.visibilityProcessorMaxPollRPS',
  ]) {
    args.push('--dynamic-config-value', `${key}=1000`);
  }
  // More than 100 signals arriving during one workflow task (a courier's flood) make the server fail that task
  // (FORCE_CLOSE_COMMAND) while the worker may still be running its local activities, which Temporal Core 1.24 mishandles
  // (docs/architecture.md "Signals buffered during a workflow task"): let a task see many more first.
  args.push('--dynamic-config-value', `history.maximumBufferedEventsBatch=${MAX_BUFFERED_EVENTS}`);
  if (options.logFile) fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const out = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(cli, args, { stdio: ['ignore', out, out], detached: false });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await Promise.race([
    waitForPort(options.port, '127.0.0.1', 120_000),
    exited.then((code) => {
      throw new Error(
        `temporal server start-dev exited with code ${code} before it was ready${options.logFile ? ` (see ${options.logFile})` : ''}. Is port ${options.port} already taken (a dev server left from a killed run: \`pkill -f 'temporal server start-dev'\`)? Or set TEMPORAL_PORT, or TEMPORAL_ADDRESS to use a running server.`,
      );
    }),
  ]);
  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: options.headless ? null : `http://localhost:${options.uiPort ?? options.port + 1000}`,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// `npm run temporal:install`: find or build the pinned CLI now (CI does this before the tests).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const cli = await ensureTemporalCli();
    const version = spawnSync(cli, ['--version'], { encoding: 'utf8' }).stdout.trim();
    console.log(`Temporal CLI: ${cli} (${version || 'version unknown'})`);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
