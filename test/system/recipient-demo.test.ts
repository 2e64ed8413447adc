// docs/recipients.md "Try it with npm run dev", run as written against a real `npm run dev`: the section's shell blocks
// go to one bash in order, with the printed demo key pasted where the page says `sk_live_...`, and this stack's ports
// where it says 3000 (API), 4010 (courier simulator) and 4020 (SMSC simulator's control API). Then its output must show
// what the "Done when" asks: the link and the PIN in the SMSC log, the forms on the page, both answers on the
// courier's job, and the delivered message.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { devSetup, printedSecretKey, type DevSetup } from '../helpers/dev.js';

let dev: DevSetup;
beforeAll(async () => {
  dev = await devSetup('recipient_demo');
});
afterAll(() => dev?.cleanUp());

/** The ```sh blocks of one section of the page, in order. */
function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  const rest = markdown.slice(start + heading.length + 2);
  const next = rest.search(/^## /m);
  const section = next === -1 ? rest : rest.slice(0, next);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

describe('docs/recipients.md, Try it with npm run dev', () => {
  it('runs as written: link, PIN, forms, both answers on the courier job, delivered', async () => {
    const started = await dev.start();
    const key = printedSecretKey(started.output());
    expect(key).toMatch(/^sk_live_/);

    const markdown = fs.readFileSync(path.join(ROOT_DIR, 'docs/recipients.md'), 'utf8');
    const blocks = shellBlocks(markdown, '## Try it with npm run dev');
    expect(blocks.length).toBeGreaterThan(5);
    const script = blocks
      .join('\n')
      .replaceAll('http://localhost:3000', `http://127.0.0.1:${dev.ports.api}`)
      .replaceAll('localhost:4010', `127.0.0.1:${dev.ports.simulator}`)
      .replaceAll('localhost:4020', `127.0.0.1:${dev.ports.smscHttp}`)
      .replaceAll('sk_live_...', key!);

    const bash = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: ROOT_DIR,
      env: dev.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    bash.stdout!.on('data', (d) => (out += d));
    bash.stderr!.on('data', (d) => (out += d));
    const timer = setTimeout(() => process.kill(-bash.pid!, 'SIGTERM'), 180_000);
    const code = await new Promise<number | null>((resolve) => bash.once('exit', resolve));
    clearTimeout(timer);
    expect(code, out).toBe(0);

    expect(out).toContain('moto-kwanza moves every 2000 ms');
    // The created message with the recipient link, then the out-for-delivery one with the PIN.
    const link =
      /^SMS: .*Acompanhe e diga-nos onde entregar: (http:\/\/localhost:\d+\/track\/([0-9a-f-]{36})\?r=\S+) /m.exec(out);
    expect(link, out).not.toBeNull();
    const id = link![2];
    expect(out).toMatch(/^SMS: .*saiu para entrega.* Diga o PIN \d{4,8} ao entregador\.$/m);
    // The page: both forms, with the token and language hidden, and their fields.
    expect(out).toContain(`<form class="recipient card" method="post" action="/track/${id}/location">`);
    expect(out).toContain(`<form class="recipient card" method="post" action="/track/${id}/instructions">`);
    expect(out).toMatch(/<input type="hidden" name="r" value="[^"]+">/);
    expect(out).toContain('<input type="hidden" name="lang" value="pt">');
    for (const field of ['lat', 'lng', 'instructions']) expect(out).toContain(`name="${field}"`);
    // Both posts recorded: 303 back to the page with ok=.
    expect(out).toMatch(new RegExp(`^303 \\S+/track/${id}\\?\\S*ok=location`, 'm'));
    expect(out).toMatch(new RegExp(`^303 \\S+/track/${id}\\?\\S*ok=instructions`, 'm'));
    // The courier's job has both answers.
    expect(out).toContain('update: {"destination_coordinates":{"lat":-8.838333,"lng":13.234444}}');
    expect(out).toContain('update: {"instructions":"Portão azul ao lado da cantina, 2.º andar"}');
    // The PIN given at the door, and the last SMS.
    expect(out).toContain('pin_set true');
    expect(out).toMatch(/^SMS: .*a sua encomenda foi entregue\. Obrigado!$/m);
  }, 300_000);
});
