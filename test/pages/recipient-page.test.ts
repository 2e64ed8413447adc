// The recipient page on the real stack (docs/recipients.md "The recipient page"): the recipient link's token unlocks
// the forms of /track/{id}; each answer is a 303, `delivery.recipient_updated` (source `recipient`) on the delivery,
// and the courier simulator's job shows the update (POST /bookings/{ref}/updates). A wrong token, bad input and a
// final status change nothing. Then Chromium: axe at 375 px, the keyboard, and "use my location" with geolocation.
import axe from 'axe-core';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Simulator } from '../../simulator/server.js';
import { luandaDate } from '../../src/recipients/forms.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitFor,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);

let stack: Stack;
let sim: Simulator;
let m: Merchant;
let browser: Browser;
beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack();
  m = await merchantWith(stack, sim, [simCompany({ name: 'Kamba Express' })]);
  browser = await chromium.launch({
    executablePath: chromiumSetup.path,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await sim?.close();
});

const key = () => m.tenant.secret_key;
const recipientUpdates = (d: any) => d.events.filter((e: any) => e.event_type === 'delivery.recipient_updated');

async function tokenOf(id: string): Promise<string> {
  const { rows } = await stack.pool.query('SELECT recipient_token FROM deliveries WHERE id = $1', [id]);
  return rows[0].recipient_token;
}

/** A live delivery booked with the simulator, moved by its signed fleet events (assigned at booking). */
async function delivery(...steps: [string, Record<string, unknown>?][]) {
  const d = await createDeliveryFor(stack, m);
  let now = await waitForStatus(stack, key(), d.id, 'assigned');
  for (const [event_type, payload] of steps) {
    const sent = await sim.control.sendEvent(m.slug, { tracking_ref: now.courier.tracking_ref, event_type, payload });
    expect(sent.response_status).toBe(202);
    const before = now.events.length;
    now = await waitFor(stack, key(), d.id, (x) => x.events.length > before);
  }
  return { ...now, token: await tokenOf(d.id) };
}

const page = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${stack.url}${path}`, { headers, redirect: 'manual' });

const post = (path: string, form: Record<string, string>) =>
  fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });

const job = (d: any) => sim.control.booking(m.slug, d.courier.tracking_ref)!;

describe('the recipient page over HTTP', () => {
  it('the token unlocks the forms; each answer is a 303, an event and an update at the courier', async () => {
    const d = await delivery(['in_transit'], ['out_for_delivery'], ['attempt_failed', { reason: 'address_not_found' }]);
    const res = await page(`/track/${d.id}?r=${d.token}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(res.headers.get('content-language')).toBe('pt-AO');
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[^']+'/);
    expect(html).toContain('action="/track/' + d.id + '/instructions"');
    expect(html).toContain('action="/track/' + d.id + '/location"');
    expect(html).toContain('action="/track/' + d.id + '/window"'); // after the failed attempt
    expect(html).not.toContain('Avenida Deolinda'); // never the merchant's addresses or contact
    expect(html).not.toContain('Ana Silva');
    expect(Buffer.byteLength(html)).toBeLessThan(50 * 1024);

    const steps: [string, Record<string, string>, Record<string, unknown>][] = [
      [
        'instructions',
        { instructions: 'Portão azul ao lado da cantina' },
        { instructions: 'Portão azul ao lado da cantina' },
      ],
      ['location', { lat: '-8,8521', lng: '13.2655' }, { destination_coordinates: { lat: -8.8521, lng: 13.2655 } }],
      [
        'window',
        { date: luandaDate(new Date(), 1), slot: '16:00-20:00' },
        { preferred_window: { date: luandaDate(new Date(), 1), from: '16:00', to: '20:00' } },
      ],
    ];
    for (const [i, [form, fields, expected]] of steps.entries()) {
      const answer = await post(`/track/${d.id}/${form}`, { r: d.token, lang: 'pt', ...fields });
      expect(answer.status, form).toBe(303);
      const location = answer.headers.get('location')!;
      expect(location).toBe(`/track/${d.id}?r=${d.token}&lang=pt&ok=${form}`);
      const back = await (await page(location)).text();
      expect(back).toContain('role="status">Obrigado!');
      const now = await waitFor(stack, key(), d.id, (x) => recipientUpdates(x).length === i + 1);
      expect(recipientUpdates(now)[i]).toMatchObject({ source: 'recipient', payload: expected });
      expect(now.status).toBe('in_transit'); // no status change
      await expect.poll(() => job(d).updates.length, { timeout: 15_000 }).toBe(i + 1);
      expect(job(d).updates[i]).toMatchObject(expected);
    }
    // The merchant's delivery holds the latest answers (and the events); the widget and tracking views never do.
    const merchant = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key() })).body;
    expect(merchant.recipient_answers).toMatchObject({
      instructions: 'Portão azul ao lado da cantina',
      destination_coordinates: { lat: -8.8521, lng: 13.2655 },
      preferred_window: { from: '16:00', to: '20:00' },
    });
    const tracking = (await stack.request('GET', `/v1/deliveries/${d.id}/tracking`)).body;
    expect(JSON.stringify(tracking)).not.toContain('cantina');
  });

  it('a wrong or missing token: the plain public page, never the forms; a POST is 403 and records nothing', async () => {
    const d = await delivery(['in_transit']);
    for (const query of ['', '?r=wrong', `?r=${d.token.slice(0, -1)}x`]) {
      const html = await (await page(`/track/${d.id}${query}`)).text();
      expect(html).not.toContain('<form');
      expect(html).toContain(d.reference);
    }
    for (const r of [undefined, 'wrong']) {
      const res = await post(`/track/${d.id}/instructions`, { ...(r ? { r } : {}), instructions: 'x' });
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain('<form');
    }
    expect((await post(`/track/${d.id}/nonsense`, { r: d.token })).status).toBe(404);
    const now = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key() })).body;
    expect(recipientUpdates(now)).toEqual([]);
  });

  it('bad input: the page again with the problem in plain words, fields kept; nothing recorded', async () => {
    const d = await delivery(
      ['in_transit'],
      ['out_for_delivery'],
      ['attempt_failed', { reason: 'recipient_unavailable' }],
    );
    const long = 'a'.repeat(281);
    const tooLong = await post(`/track/${d.id}/instructions`, { r: d.token, instructions: long });
    expect(tooLong.status).toBe(422);
    const html = await tooLong.text();
    expect(html).toContain('O texto é demasiado longo.');
    expect(html).toContain(`>${long}</textarea>`);
    expect(html).toContain('aria-invalid="true"');

    const badLat = await post(`/track/${d.id}/location`, { r: d.token, lat: '95', lng: 'abc', lang: 'en' });
    expect(badLat.status).toBe(422);
    const en = await badLat.text();
    expect(en).toContain('This value is not possible.');
    expect(en).toContain('Type a number');
    expect(en).toContain('value="95"');

    const farDate = await post(`/track/${d.id}/window`, {
      r: d.token,
      date: luandaDate(new Date(), 8),
      slot: '08:00-12:00',
    });
    expect(farDate.status).toBe(422);
    const badSlot = await post(`/track/${d.id}/window`, {
      r: d.token,
      date: luandaDate(new Date()),
      slot: '02:00-04:00',
    });
    expect(badSlot.status).toBe(422);
    const now = (await stack.request('GET', `/v1/deliveries/${d.id}`, { key: key() })).body;
    expect(recipientUpdates(now)).toEqual([]);
    expect(job(d).updates).toEqual([]);
  });

  it('no window before a failed attempt (409); a final status refuses every form (409) and shows none', async () => {
    const d = await delivery(['in_transit']);
    expect(await (await page(`/track/${d.id}?r=${d.token}`)).text()).not.toContain('/window"');
    const early = await post(`/track/${d.id}/window`, {
      r: d.token,
      date: luandaDate(new Date()),
      slot: '08:00-12:00',
    });
    expect(early.status).toBe(409);

    const done = await delivery(['in_transit'], ['delivered']);
    expect(done.status).toBe('delivered');
    const html = await (await page(`/track/${done.id}?r=${done.token}`)).text();
    expect(html).not.toContain('<form');
    expect(html).toContain('Esta entrega já terminou');
    const refused = await post(`/track/${done.id}/instructions`, { r: done.token, instructions: 'tarde demais' });
    expect(refused.status).toBe(409);
    const now = (await stack.request('GET', `/v1/deliveries/${done.id}`, { key: key() })).body;
    expect(recipientUpdates(now)).toEqual([]);
  });

  it('English by Accept-Language or ?lang=en', async () => {
    const d = await delivery();
    const en = await page(`/track/${d.id}?r=${d.token}`, { 'accept-language': 'en-GB,en;q=0.9' });
    expect(await en.text()).toContain('Help the courier find you');
    expect(await (await page(`/track/${d.id}?r=${d.token}&lang=en`)).text()).toContain('Use my location');
  });
});

describe('the recipient page in Chromium at 375 px', () => {
  it('passes axe, works with the keyboard, and "use my location" fills the coordinates', async () => {
    const d = await delivery(['in_transit'], ['out_for_delivery'], ['attempt_failed', { reason: 'access_denied' }]);
    const context = await browser.newContext({
      viewport: { width: 375, height: 740 },
      isMobile: true,
      hasTouch: true,
      locale: 'pt-AO',
    });
    try {
      await context.grantPermissions(['geolocation'], { origin: stack.url });
      await context.setGeolocation({ latitude: -8.838333, longitude: 13.234444 });
      const tab = await context.newPage();
      const cspErrors: string[] = [];
      tab.on('console', (msg) => {
        if (msg.type() === 'error') cspErrors.push(msg.text());
      });
      await tab.goto(`${stack.url}/track/${d.id}?r=${d.token}`);

      await tab.evaluate(axe.source);
      const violations = await tab.evaluate(async () => {
        const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
        return result.violations.flatMap((v: any) => v.nodes.map((n: any) => `${v.id} ${n.target.join(' ')}`));
      });
      expect(violations).toEqual([]);
      expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

      // The keyboard reaches every field and button, in order.
      const reached = new Set<string>();
      for (let i = 0; i < 30; i++) {
        await tab.keyboard.press('Tab');
        reached.add(
          await tab.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || ''),
        );
      }
      for (const id of ['date', 'instructions', 'locate', 'lat', 'lng']) expect(reached, id).toContain(id);

      // "Usar a minha localização" with the keyboard: the script fills the fields, the form sends them.
      await tab.focus('#locate');
      await tab.keyboard.press('Enter');
      await expect.poll(() => tab.inputValue('#lat')).toBe('-8.838333');
      expect(await tab.inputValue('#lng')).toBe('13.234444');
      await tab.click('form[action$="/location"] button[type=submit]');
      await tab.waitForURL(/ok=location/);
      expect(await tab.textContent('[role=status].ok-msg')).toContain('localização');
      await expect
        .poll(() => job(d).updates.at(-1)?.destination_coordinates, { timeout: 15_000 })
        .toEqual({
          lat: -8.838333,
          lng: 13.234444,
        });
      expect(cspErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('works without JavaScript: the button stays hidden, typed coordinates are sent', async () => {
    const d = await delivery(['in_transit']);
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, javaScriptEnabled: false });
    try {
      const tab = await context.newPage();
      await tab.goto(`${stack.url}/track/${d.id}?r=${d.token}`);
      expect(await tab.isVisible('#locate')).toBe(false);
      await tab.fill('#instructions', 'Casa amarela, 2.º andar');
      await tab.click('form[action$="/instructions"] button[type=submit]');
      await tab.waitForURL(/ok=instructions/);
      await expect.poll(() => job(d).updates.at(-1)?.instructions, { timeout: 15_000 }).toBe('Casa amarela, 2.º andar');
    } finally {
      await context.close();
    }
  });
});

// Last in the file: it uses up this address's recipient POSTs for the minute.
describe('rate limit', () => {
  it('the forms take at most 20 POSTs a minute from one address: then 429 with Retry-After, nothing recorded', async () => {
    const d = await delivery(['in_transit']);
    let limited: Response | null = null;
    for (let i = 0; i < 25 && !limited; i++) {
      const res = await post(`/track/${d.id}/instructions`, { r: d.token, instructions: '' }); // 422: counts all the same
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(422);
    }
    expect(limited?.status).toBe(429);
    expect(limited?.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
