// The browser the browser tests drive: Debian's Chromium. `npm test` installs it on a fresh machine when it
// is missing and this user may (root, or passwordless sudo), so the README's `npm ci && npm test` passes
// with no other step. Why Debian's package and not an npm one: Playwright's own download cannot reach its
// CDN here, and the npm packages that ship a Chromium binary (@sparticuz/chromium) need Node 22.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** What to do when no Chromium can be had: one line a person can act on. */
export const CHROMIUM_HINT =
  'Install it with `apt-get update && apt-get install -y chromium` (as root), or point CHROMIUM_PATH at a Chromium binary. ' +
  '`npx playwright install` cannot download browsers on this machine.';

function canRunAsRoot(): 'root' | 'sudo' | null {
  if (process.getuid?.() === 0) return 'root';
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0 ? 'sudo' : null;
}

/**
 * The Chromium binary to use: CHROMIUM_PATH, else /usr/bin/chromium, else Debian's package installed now
 * (progress on the log). Throws with the next step when none is there and none can be installed.
 */
export function ensureChromium(log: (line: string) => void = console.log): string {
  const wanted = process.env.CHROMIUM_PATH;
  if (wanted) {
    if (fs.existsSync(wanted)) return wanted;
    throw new Error(`CHROMIUM_PATH=${wanted} does not exist. ${CHROMIUM_HINT}`);
  }
  if (fs.existsSync(DEFAULT_CHROMIUM)) return DEFAULT_CHROMIUM;

  const how = canRunAsRoot();
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!how || !hasApt) throw new Error(`Chromium is not installed at ${DEFAULT_CHROMIUM} and this user cannot install it. ${CHROMIUM_HINT}`);

  const run = (args: string[]) => {
    const [cmd, ...rest] = how === 'root' ? args : ['sudo', '-n', ...args];
    execFileSync(cmd, rest, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  const started = Date.now();
  log("Chromium is missing: installing Debian's chromium for the browser tests (apt-get, 1-3 min the first time)...");
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium']);
  if (!fs.existsSync(DEFAULT_CHROMIUM)) throw new Error(`apt-get installed chromium but ${DEFAULT_CHROMIUM} is missing. ${CHROMIUM_HINT}`);
  log(`Chromium installed in ${Math.round((Date.now() - started) / 1000)} s.`);
  return DEFAULT_CHROMIUM;
}
