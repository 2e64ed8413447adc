// Toxiproxy (Shopify's TCP proxy with "toxics": latency, bandwidth, timeouts, resets, cut answers) for
// `npm run test:faults`: the server is built once with `go install` from the Go module proxy into the per-user cache
// (scripts/lib/go-install.ts), like the Temporal binaries:  ~/.cache/delivery-api/toxiproxy-v2.12.0/server
// The test drives it with toxiproxy-node-client (test/helpers/faults.ts).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { goInstall, isExecutable, userCacheDir } from './go-install.js';
import { waitForPort } from './net.js';
import { Proc } from './processes.js';

const TOXIPROXY_VERSION = 'v2.12.0';
const DIR = userCacheDir(`toxiproxy-${TOXIPROXY_VERSION}`);
const BIN = path.join(DIR, 'server'); // the package is cmd/server

/** The Toxiproxy server binary, from the per-user cache or built now with Go (seconds). */
export async function ensureToxiproxy(log: (line: string) => void = console.log): Promise<string> {
  if (!isExecutable(BIN)) {
    await goInstall(
      {
        what: `Toxiproxy ${TOXIPROXY_VERSION}`,
        packages: [`github.com/Shopify/toxiproxy/v2/cmd/server@${TOXIPROXY_VERSION}`],
        dir: DIR,
        otherwise: 'or skip the network-fault test (`npm run test:faults`): nothing else needs Toxiproxy.',
      },
      log,
    );
  }
  return BIN;
}

/** Starts the Toxiproxy server with its control API on 127.0.0.1:`port`; resolves once it listens. */
export async function startToxiproxy(port: number, logFile: string): Promise<Proc> {
  const proc = new Proc('toxiproxy', await ensureToxiproxy(), ['-host', '127.0.0.1', '-port', String(port)], {
    logFile,
    env: { LOG_LEVEL: 'warn' },
  });
  proc.start();
  await waitForPort(port, '127.0.0.1', 30_000);
  return proc;
}

// `npm run faults:install`: build the binary now (CI does this before the tests).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    console.log(`Toxiproxy ${TOXIPROXY_VERSION}: ${await ensureToxiproxy()}`);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
