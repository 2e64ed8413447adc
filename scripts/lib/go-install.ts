// Go programs this project runs but does not ship (the Temporal CLI, Temporal Server, temporal-sql-tool, the
// Temporal UI server): built once with `go install` from the Go module proxy into a per-user cache
// (`$XDG_CACHE_HOME/delivery-api/<name>/`, default ~/.cache), with progress lines while Go works.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const isExecutable = (file: string) => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, name);
    if (dir && isExecutable(file)) return file;
  }
  return null;
}

/** `$XDG_CACHE_HOME/delivery-api/<name>` (default ~/.cache/delivery-api/<name>): survives clones and `git clean`. */
export const userCacheDir = (name: string) =>
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'delivery-api', name);

const findGo = () => onPath('go') ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);

export interface GoInstall {
  /** What is built, for the messages ("the Temporal Server v1.29.1"). */
  what: string;
  /** Packages at one module version, e.g. `go.temporal.io/server/cmd/server@v1.29.1`. */
  packages: string[];
  /** GOBIN: the binaries land here, named after their package's last path element. */
  dir: string;
  /** Besides Go, what else would do (shown when Go is missing). */
  otherwise: string;
}

/**
 * `go install -v <packages>` into `dir`, printing a progress line every 15 s (modules downloaded, packages built)
 * and, on failure, the last lines of Go's output and what to do next.
 */
export async function goInstall(
  { what, packages, dir, otherwise }: GoInstall,
  log: (line: string) => void = console.log,
): Promise<void> {
  const go = findGo();
  if (!go) {
    throw new Error(
      `${what} is not built yet and Go is not installed to build it.\n  Either install Go 1.24+ (https://go.dev/doc/install) and run this again,\n  ${otherwise}`,
    );
  }
  log(
    `Building ${what} with Go (first time only; a cold build downloads a few hundred MB and takes several minutes on 2 cores)...`,
  );
  fs.mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
  const child = spawn(go, ['install', '-v', ...packages], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GOBIN: dir, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
  });
  const tail: string[] = [];
  let downloaded = 0;
  let built = 0;
  const take = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      if (line.startsWith('go: downloading')) downloaded++;
      else if (!line.includes(' ')) built++; // -v prints each package's import path as it is built
      tail.push(line);
      if (tail.length > 40) tail.shift();
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const ticker = setInterval(
    () => log(`    [go] ${downloaded} modules downloaded, ${built} packages built, ${elapsed()}`),
    15_000,
  );
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('exit', resolve);
  });
  clearInterval(ticker);
  if (code !== 0) {
    throw new Error(
      `\`go install ${packages.join(' ')}\` failed (exit ${code}) after ${elapsed()}. Go's last lines:\n${tail.map((l) => `    ${l}`).join('\n')}\n` +
        'Next: check that the Go module proxy is reachable (`go env GOPROXY`; `go version` must be 1.24+) and the disk has a few GB free, then run this again.',
    );
  }
  log(`Built ${what} in ${elapsed()} (${downloaded} modules downloaded, ${built} packages built), cached in ${dir}.`);
}
