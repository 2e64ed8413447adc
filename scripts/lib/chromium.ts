// The browser the browser tests drive: Debian's Chromium. `npm test` installs it on a fresh machine when it
// is missing and this user may (root, or passwordless sudo), so the README's `npm ci && npm test` passes
// with no other step. Why Debian's package and not an npm one: Playwright's own download cannot reach its
// CDN here, and the npm packages that ship a Chromium binary (@sparticuz/chromium) need Node 22.
import fs from 'node:fs';
import { ensureDebianBinary } from './debian-package.js';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** What to do when no Chromium can be had: one line a person can act on. */
export const CHROMIUM_HINT =
  'Install it with `apt-get update && apt-get install -y chromium` (as root), or point CHROMIUM_PATH at a Chromium binary. ' +
  '`npx playwright install` cannot download browsers on this machine.';

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
  return ensureDebianBinary(
    { name: 'Chromium', binary: DEFAULT_CHROMIUM, pkg: 'chromium', purpose: 'the browser tests', hint: CHROMIUM_HINT },
    log,
  );
}
