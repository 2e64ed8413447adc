// docs/testing-your-integration.md, run as written: its shell blocks go to bash in order, against this file's real API
// and worker (test/helpers/stack.ts) and the run's database (the admin command line's DATABASE_URL), with this stack's
// address where the page says http://localhost:3000 and a free port where it says 4242. The receiver the page starts
// must have verified a test-mode webhook for each of the delivery's seven events.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { freePort } from '../../scripts/lib/net.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

/** The ```sh blocks of the page, in order. */
const shellBlocks = (markdown: string) => [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

describe('docs/testing-your-integration.md', () => {
  it('runs as written: tenant create, a test webhook endpoint, a test delivery advanced to delivered, verified test webhooks', async () => {
    const page = fs.readFileSync(path.join(ROOT_DIR, 'docs/testing-your-integration.md'), 'utf8');
    const blocks = shellBlocks(page);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(blocks[0]).toContain('tenant create');
    const receiverPort = await freePort();
    const script = blocks
      .join('\n')
      .replaceAll('http://localhost:3000', stack.url)
      .replaceAll('4242', String(receiverPort));

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: stack.config.databaseUrl,
      TEMPORAL_ADDRESS: stack.config.temporalAddress,
    };
    delete env.NODE_OPTIONS; // vitest's loader options must not leak into the commands
    // One bash, as one terminal; its own process group, so the receiver it leaves in the background is stopped after.
    const bash = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: ROOT_DIR,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    bash.stdout!.on('data', (d) => (out += d));
    bash.stderr!.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => bash.once('exit', resolve));
    try {
      expect(code, out).toBe(0);
      // 1: both pairs of keys, the test secret key in use.
      expect(out).toContain(
        'tenant_id secret_key secret_key_id publishable_key publishable_key_id test_secret_key test_secret_key_id',
      );
      expect(out).toMatch(/^sk_test_\.\.\.$/m);
      // 2: a test endpoint.
      expect(out).toMatch(/^endpoint [0-9a-f-]{36} livemode false$/m);
      // 3: the test couriers.
      for (const slug of [
        'test-auto',
        'test-manual',
        'test-pin',
        'test-never-assigns',
        'test-rejects',
        'test-slow-quotes',
      ])
        expect(out).toContain(`${slug}: `);
      // 4: test quotes and a test delivery.
      expect(out).toMatch(/^test-manual: \d+(\.\d+)? Kz, livemode false$/m);
      const reference = /^(DLV-[0-9A-Z]{10}) pending livemode false$/m.exec(out)?.[1];
      expect(reference, out).toBeDefined();
      // 5: every step.
      for (const status of ['pickup_ready', 'in_transit', 'out_for_delivery', 'delivered'])
        expect(out).toContain(`advanced to ${status}\n`);
      // 6: the events, the 409, the banner.
      const events = [
        'created',
        'dispatched',
        'assigned',
        'pickup_ready',
        'in_transit',
        'out_for_delivery',
        'delivered',
      ].map((e) => `delivery.${e}`);
      expect(out).toContain(
        events.map((e, i) => `${e} (${i === 0 ? 'api' : i < 3 ? 'system' : 'fleet_webhook'})`).join('\n'),
      );
      expect(out).toMatch(/"error":"delivery_transition_not_allowed".*"current_status":"delivered"\} HTTP 409/);
      expect(out).toContain('Test delivery');

      // The receiver prints each test-mode message it verified; all seven arrive within seconds.
      const deadline = Date.now() + 30_000;
      const verified = () =>
        [...out.matchAll(/verified (delivery\.\w+)\s+(DLV-\w+) .*\(test mode\)$/gm)]
          .filter((m) => m[2] === reference)
          .map((m) => m[1]);
      while (!events.every((e) => verified().includes(e)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 250));
      expect(verified().sort(), out).toEqual([...events].sort());
      expect(out).not.toMatch(/^rejected /m);
    } finally {
      try {
        process.kill(-bash.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }, 180_000);
});
