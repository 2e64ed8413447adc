// Prometheus's promtool, which test/system/ops.test.ts runs on the alert rules, their unit tests and the Prometheus
// configuration: the one on PATH, else Debian's `prometheus` package installed when missing and this user may (the
// approach of scripts/lib/chromium.ts), else an error saying how to get it. Never a silent skip.
import { spawnSync } from 'node:child_process';
import { ensureDebianBinary } from './debian-package.js';

const DEFAULT_PROMTOOL = '/usr/bin/promtool';

const PROMTOOL_HINT =
  'Install it with `apt-get update && apt-get install -y prometheus` (as root), or put a promtool on PATH.';

/** The promtool to run: the one on PATH, else /usr/bin/promtool, installed now when missing. Throws with the hint otherwise. */
export function ensurePromtool(log: (line: string) => void = console.log): string {
  if (spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0) return 'promtool';
  return ensureDebianBinary(
    { name: 'promtool', binary: DEFAULT_PROMTOOL, pkg: 'prometheus', purpose: 'the ops tests', hint: PROMTOOL_HINT },
    log,
  );
}
