// docs/quickstart.md, run as written against a real `npm run dev`: its shell blocks (all but the one starting the
// stack, which this test runs itself) go to bash in order, with the printed demo key pasted where the page says
// `sk_live_...`, and this stack's ports where it says 3000 and 4242. Then the receiver it started must have printed
// the verified delivery.created and delivery.cancelled of the delivery the page created and cancelled. That the page
// and the README's quickstart are the same commands is checked in test/docs/quickstart.unit.test.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { freePort } from '../../scripts/lib/net.js';
import { devSetup, printedSecretKey, type DevSetup } from '../helpers/dev.js';

let dev: DevSetup;
beforeAll(async () => {
  dev = await devSetup('quickstart');
});
afterAll(() => dev?.cleanUp());

/** The ```sh blocks of the page, in order. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

describe('docs/quickstart.md', () => {
  it('runs as written: quote, delivery, tracking page, list, cancel, and verified webhooks', async () => {
    const started = await dev.start();
    const key = printedSecretKey(started.output());
    expect(key).toMatch(/^sk_live_/);

    const blocks = shellBlocks(fs.readFileSync(path.join(ROOT_DIR, 'docs/quickstart.md'), 'utf8'));
    expect(blocks[0]).toContain('npm run dev');
    const receiverPort = await freePort();
    const script = blocks
      .slice(1)
      .join('\n')
      .replaceAll('http://localhost:3000', `http://127.0.0.1:${dev.ports.api}`)
      .replaceAll('sk_live_...', key!)
      .replaceAll('4242', String(receiverPort));
    expect(script).toContain('$API/v1/quotes');

    // One bash, as one terminal; its own process group, so the receiver it leaves in the background is stopped after.
    const bash = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: ROOT_DIR,
      env: dev.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    bash.stdout!.on('data', (d) => (out += d));
    bash.stderr!.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => bash.once('exit', resolve));
    try {
      expect(code, out).toBe(0);
      // Step 3: a price per courier; step 4: the delivery; step 5: the page; step 6: the list; step 7: the cancellation.
      expect(out).toMatch(/kandengue-express: \d+(\.\d+)? Kz, \d+ min/);
      const reference = /^(DLV-[0-9A-Z]{10}) pending \d+(\.\d+)? Kz$/m.exec(out)?.[1];
      expect(reference, out).toBeDefined();
      expect(out).toMatch(new RegExp(`^http://localhost:${dev.ports.api}/track/[0-9a-f-]{36}$`, 'm'));
      expect(out).toContain('data-status="pending"');
      expect(out).toMatch(new RegExp(`^listed ${reference} pending$`, 'm'));
      expect(out).toContain('{"status":"cancelled"}');

      // Step 8: the receiver prints each message it verified; both arrive within seconds.
      const deadline = Date.now() + 30_000;
      const verified = () =>
        [...out.matchAll(/verified (delivery\.\w+)\s+(DLV-\w+)/g)].filter((m) => m[2] === reference).map((m) => m[1]);
      while (
        !(verified().includes('delivery.created') && verified().includes('delivery.cancelled')) &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(verified(), out).toEqual(expect.arrayContaining(['delivery.created', 'delivery.cancelled']));
      expect(out).not.toMatch(/^rejected /m);
    } finally {
      try {
        process.kill(-bash.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }, 300_000);
});
