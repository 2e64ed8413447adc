// Child processes of the scripts, tests and benchmarks: one that can be stopped, SIGKILLed and started again with
// the same command (the cluster's services, the crash tests' victims), and the production build they run.
import { execFileSync, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../../src/platform/config.js';

export interface ProcOptions {
  env?: NodeJS.ProcessEnv;
  /** Standard output and error are appended to this file; without one, output is dropped and errors shown here. */
  logFile?: string;
  cwd?: string;
  /** An IPC channel: a Node child started this way stops when this process is gone, even SIGKILLed (src/platform/parent.ts). */
  ipc?: boolean;
  /** Node flags put before the script's own (Proc.production), e.g. `--cpu-prof` for a profile of a benchmark's run. */
  nodeFlags?: string[];
}

export class Proc {
  child: ChildProcess | null = null;
  constructor(
    readonly name: string,
    readonly command: string,
    readonly args: string[],
    readonly options: ProcOptions = {},
  ) {}

  /**
   * One of package.json's production scripts (`start:api`, `start:worker`: "[NAME=value ...] node <flags> <file>"), after
   * `npm run build`; the script's variables come before the caller's.
   */
  static production(name: string, script: 'start:api' | 'start:worker', options: ProcOptions = {}): Proc {
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    const words = scripts[script].split(' ');
    const node = words.indexOf('node');
    const env = Object.fromEntries(words.slice(0, node).map((word) => word.split('=', 2)));
    return new Proc(name, process.execPath, [...(options.nodeFlags ?? []), ...words.slice(node + 1)], {
      ipc: true,
      ...options,
      env: { ...env, ...options.env },
    });
  }

  start(): ChildProcess {
    const { logFile, ipc, cwd, env } = this.options;
    if (logFile) fs.mkdirSync(path.dirname(logFile), { recursive: true });
    const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
    const stdio: StdioOptions = ['ignore', out, logFile ? out : 'inherit', ...(ipc ? ['ipc' as const] : [])];
    this.child = spawn(this.command, this.args, { cwd: cwd ?? ROOT_DIR, env: { ...process.env, ...env }, stdio });
    if (typeof out === 'number') fs.closeSync(out);
    return this.child;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal` (SIGKILL by default) and waits until the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  /** SIGTERM, then SIGKILL when it is still there after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.kill('SIGTERM');
    clearTimeout(timer);
  }
}

/** `npm run build`: the production bundles that start:api and start:worker run (its output only when it fails). */
export function productionBuild(): void {
  // BENCH_SKIP_BUILD=1 reuses the bundles already in .build (repeating a benchmark on unchanged code).
  if (process.env.BENCH_SKIP_BUILD === '1' && fs.existsSync(path.join(ROOT_DIR, '.build', 'dist', 'server.js'))) return;
  try {
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: ROOT_DIR, stdio: 'pipe' });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `npm run build failed:\n${stdout}${stderr}\nNext: fix the error above (\`npm run build\` alone shows it too), then run this again.`,
    );
  }
}
