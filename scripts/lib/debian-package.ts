// Tools the tests need that come from a Debian package (Chromium for the browser tests, promtool for the ops tests):
// installed on a fresh machine when missing and this user may (root, or passwordless sudo), else an error that says
// how to get them. Never a silent skip.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';

function canRunAsRoot(): 'root' | 'sudo' | null {
  if (process.getuid?.() === 0) return 'root';
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0 ? 'sudo' : null;
}

/**
 * `binary` when it exists, else Debian's `pkg` installed now with apt-get (progress on the log) and `binary` then.
 * Throws with `hint` (one line a person can act on) when it is missing and cannot be installed.
 */
export function ensureDebianBinary(
  spec: { name: string; binary: string; pkg: string; purpose: string; hint: string },
  log: (line: string) => void = console.log,
): string {
  if (fs.existsSync(spec.binary)) return spec.binary;

  const how = canRunAsRoot();
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!how || !hasApt)
    throw new Error(`${spec.name} is not installed at ${spec.binary} and this user cannot install it. ${spec.hint}`);

  const run = (args: string[]) => {
    const [cmd, ...rest] = how === 'root' ? args : ['sudo', '-n', ...args];
    execFileSync(cmd, rest, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  };
  const started = Date.now();
  log(
    `${spec.name} is missing: installing Debian's ${spec.pkg} for ${spec.purpose} (apt-get, 1-3 min the first time)...`,
  );
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', spec.pkg]);
  if (!fs.existsSync(spec.binary))
    throw new Error(`apt-get installed ${spec.pkg} but ${spec.binary} is missing. ${spec.hint}`);
  log(`${spec.name} installed in ${Math.round((Date.now() - started) / 1000)} s.`);
  return spec.binary;
}
