// The dashboard's last mile (#29) in headless Chromium against the real stack and the courier simulator: a stalled
// delivery's recovery panel offers exactly the actions the API accepts, with the stall reason in words, and each action
// works once confirmed (redispatch to a chosen company, mark as failed); "Return to sender" on a failed delivery; failed
// attempts in words, the automatic return after the last one and the links between a delivery and its return; the
// proof of delivery; an order number and a phone find their delivery in the list; max_delivery_attempts in the
// settings; a viewer reads all of it and is offered no change. axe-core at desktop width and at 375 px.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Simulator } from '../../simulator/server.js';
import type { Role } from '../../src/users/roles.js';
import {
  DESTINATION,
  createDeliveryFor,
  merchantWith,
  quoteBody,
  simCompany,
  startSimulator,
  waitFor,
  waitForStatus,
  type Merchant,
} from '../helpers/fixtures.js';
import { bothWidths, dashboardUser, launchChromium, signInDashboard } from '../helpers/dashboard-browser.js';
import { startStack, type Stack } from '../helpers/stack.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);
const PASSWORD = 'palavra-passe muito segura';
/** The panel's button of each recovery action, in Portuguese. */
const ACTION_LABELS: Record<string, string> = {
  redispatch: 'Pedir a outra transportadora',
  resume: 'Retomar',
  mark_failed: 'Dar como falhada',
  cancel: 'Cancelar sem recolha',
};

let stack: Stack;
let sim: Simulator;
let m: Merchant;
let browser: Browser;
const kamba = simCompany({ name: 'Kamba Express' });
const rapido = simCompany({ name: 'Rápido Entregas' });
const users = { owner: 'dona@loja-ultima.ao', viewer: 'leitor@loja-ultima.ao' };

const userWith = (role: Role, email: string) => dashboardUser(stack, m.tenant.tenant_id, role, email, PASSWORD);

beforeAll(async () => {
  [stack, sim] = await Promise.all([startStack(), startSimulator()]);
  m = await merchantWith(stack, sim, [kamba, rapido]);
  await userWith('owner', users.owner);
  await userWith('viewer', users.viewer);
  browser = await launchChromium(chromiumSetup.path);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await sim?.close();
});

const get = async (id: string) =>
  (await stack.request('GET', `/v1/deliveries/${id}`, { key: m.tenant.secret_key })).body;
const courierRef = async (id: string) => (await get(id)).courier?.tracking_ref as string;

/** The courier's fleet event for delivery `id` (through the simulator, signed like a real courier's). */
async function fleet(id: string, event_type: string, payload?: Record<string, unknown>, slug = kamba.slug) {
  await sim.control.sendEvent(slug, { tracking_ref: await courierRef(id), event_type, payload });
}

/** A delivery with Kamba moved by its fleet events to `status` (through in_transit and out_for_delivery). */
async function deliveryAt(status: 'in_transit' | 'out_for_delivery', extra: Record<string, unknown> = {}) {
  const d = await createDeliveryFor(stack, m, extra, kamba.slug);
  await waitForStatus(stack, m.tenant.secret_key, d.id, 'assigned');
  for (const step of ['in_transit', 'out_for_delivery'].slice(0, status === 'in_transit' ? 1 : 2)) {
    await fleet(d.id, step);
    await waitForStatus(stack, m.tenant.secret_key, d.id, step);
  }
  return d;
}

/** A delivery whose courier (Kamba) refuses the booking: stalled, reason courier_rejected. */
async function stalledDelivery() {
  sim.control.configure(kamba.slug, { reject_bookings: 422 });
  try {
    const d = await createDeliveryFor(stack, m, {}, kamba.slug);
    return await waitForStatus(stack, m.tenant.secret_key, d.id, 'stalled');
  } finally {
    sim.control.reset(kamba.slug);
  }
}

/** A delivery with Kamba to `destination` (quoted for it), with `metadata`. */
async function deliveryTo(destination: typeof DESTINATION, metadata: Record<string, string>) {
  const body = { ...quoteBody(), destination };
  const quoted = await stack.request('POST', '/v1/quotes', { key: m.tenant.secret_key, body });
  const q = quoted.body.data.find((e: { company_slug: string }) => e.company_slug === kamba.slug);
  const res = await stack.request('POST', '/v1/deliveries', {
    key: m.tenant.secret_key,
    body: { quote_id: q.quote_id, ...body, options: { metadata } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const signedIn = (email: string) => signInDashboard(browser, stack.url, email, PASSWORD);

const openDelivery = async (page: Page, d: { id: string; reference: string }) => {
  await page.goto(`${stack.url}/dashboard/deliveries/${d.id}`);
  await page.getByRole('heading', { name: new RegExp(`Entrega ${d.reference}`) }).waitFor();
};
const confirm = (page: Page) => page.getByRole('dialog').getByRole('button', { name: 'Confirmar' }).click();
const eventText = (page: Page, type: string) => page.locator(`.timeline li[data-event="${type}"]`).first().innerText();

describe('the dashboard on the last mile (#29)', () => {
  let owner: { context: BrowserContext; page: Page };
  beforeAll(async () => {
    owner = await signedIn(users.owner);
  }, 120_000);
  afterAll(async () => owner?.context.close());

  it('a stalled delivery: the reason in words, exactly the API’s actions; redispatch to a chosen company', async () => {
    const { page } = owner;
    const stalled = await stalledDelivery();
    expect(stalled.recovery?.reason).toBe('courier_rejected');
    const actions: string[] = stalled.recovery.actions;
    expect(actions).toContain('redispatch');

    await openDelivery(page, stalled);
    const panel = page.getByRole('region', { name: 'Esta entrega está parada' });
    expect(await panel.innerText()).toContain('Porquê: a transportadora recusou o pedido');
    expect(await panel.innerText()).not.toContain('courier_rejected');
    const offered = await panel.locator('.recovery-actions > button').allInnerTexts();
    expect(offered.sort()).toEqual(actions.map((a) => ACTION_LABELS[a]).sort());
    expect(await page.getByRole('button', { name: 'Cancelar entrega' }).count()).toBe(0);
    await bothWidths(page, 'stalled delivery');

    await panel.getByRole('combobox', { name: 'Transportadora' }).selectOption({ label: 'Rápido Entregas' });
    await panel.getByRole('button', { name: 'Pedir a outra transportadora' }).click();
    expect(await page.getByRole('dialog').innerText()).toContain(
      `Pedir a entrega ${stalled.reference} a Rápido Entregas?`,
    );
    await confirm(page);
    await page.getByText('Feito: a entrega seguiu.').waitFor();
    const moved = await waitFor(stack, m.tenant.secret_key, stalled.id, (d) => d.status !== 'stalled');
    expect(moved.company_id).toBe(m.couriers[rapido.slug]);
    expect(moved.recovery).toBeNull();
    await page.locator('.timeline li[data-event="delivery.redispatched"]').waitFor();
    await expect.poll(() => panel.count()).toBe(0);
  }, 120_000);

  it('mark as failed from the panel, confirmed first; "Go back" in the dialog changes nothing', async () => {
    const { page } = owner;
    const stalled = await stalledDelivery();
    expect(stalled.recovery.actions).toContain('mark_failed');
    await openDelivery(page, stalled);
    await page.getByRole('button', { name: 'Dar como falhada' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Voltar' }).click();
    expect((await get(stalled.id)).status).toBe('stalled');
    await page.getByRole('button', { name: 'Dar como falhada' }).click();
    await confirm(page);
    await waitForStatus(stack, m.tenant.secret_key, stalled.id, 'failed');
    await page.locator('.badge[data-status="failed"]').first().waitFor();
  }, 120_000);

  it('"Return to sender" on a failed delivery with no return creates it; the two link to each other', async () => {
    const { page } = owner;
    const d = await deliveryAt('out_for_delivery');
    await fleet(d.id, 'failed', { reason: 'Cliente mudou de casa' });
    const failed = await waitForStatus(stack, m.tenant.secret_key, d.id, 'failed');
    expect(failed.return_delivery_id).toBeNull();

    await openDelivery(page, d);
    const region = page.getByRole('region', { name: 'Devolução ao remetente' });
    await bothWidths(page, 'failed delivery');
    await region.getByRole('button', { name: 'Devolver ao remetente' }).click();
    await confirm(page);
    await page.getByRole('heading', { name: new RegExp(`Entrega ${d.reference}-R`) }).waitFor();
    const original = await get(d.id);
    expect(original.return_delivery_id).toBeTruthy();
    expect(page.url()).toContain(`/dashboard/deliveries/${original.return_delivery_id}`);
    expect(await page.getByRole('region', { name: 'Devolução ao remetente' }).innerText()).toContain(
      'Esta entrega é a devolução de outra.',
    );
    await page.getByRole('link', { name: 'Ver a entrega original' }).click();
    await page.getByRole('heading', { name: new RegExp(`Entrega ${d.reference} `) }).waitFor();
    await page.getByRole('link', { name: 'Ver a devolução' }).waitFor();
    expect(await page.getByRole('button', { name: 'Devolver ao remetente' }).count()).toBe(0);
  }, 120_000);

  it('failed attempts in words; after the last one the parcel goes back in a return of its own', async () => {
    const { page } = owner;
    const d = await deliveryAt('out_for_delivery');
    await fleet(d.id, 'attempt_failed', { reason: 'recipient_unavailable' });
    await waitFor(stack, m.tenant.secret_key, d.id, (x) => x.status === 'in_transit');
    await openDelivery(page, d);
    expect(await eventText(page, 'delivery.attempt_failed')).toContain(
      'Tentativa de entrega falhada · tentativa 1 · o destinatário não estava',
    );

    await fleet(d.id, 'out_for_delivery');
    await waitForStatus(stack, m.tenant.secret_key, d.id, 'out_for_delivery');
    await fleet(d.id, 'attempt_failed', { reason: 'address_not_found' });
    const failed = await waitFor(
      stack,
      m.tenant.secret_key,
      d.id,
      // The return's id is on the delivery a moment before its delivery.return_started event: wait for both.
      (x) =>
        x.status === 'failed' &&
        x.return_delivery_id &&
        x.events.some((e: { event_type: string }) => e.event_type === 'delivery.return_started'),
    );
    await openDelivery(page, d);
    const attempts = await page.locator('.timeline li[data-event="delivery.attempt_failed"]').allInnerTexts();
    expect(attempts[1]).toContain('tentativa 2 · a morada não foi encontrada');
    expect(await eventText(page, 'delivery.return_started')).toContain('Devolução ao remetente iniciada');

    // The return is delivered back to the shop: the original says so.
    await page.getByRole('link', { name: 'Ver a devolução' }).click();
    await page.getByRole('link', { name: 'Ver a entrega original' }).waitFor();
    const back = await waitForStatus(stack, m.tenant.secret_key, failed.return_delivery_id, 'assigned');
    expect(back.return_of).toBe(d.id);
    for (const step of ['in_transit', 'delivered']) {
      await fleet(back.id, step);
      await waitForStatus(stack, m.tenant.secret_key, back.id, step);
    }
    await waitFor(stack, m.tenant.secret_key, d.id, (x) =>
      x.events.some((e: { event_type: string }) => e.event_type === 'delivery.returned'),
    );
    await openDelivery(page, d);
    expect(await eventText(page, 'delivery.returned')).toContain('Devolvida ao remetente');
  }, 120_000);

  it('the proof of delivery: who received it, the photo and signature as links, the place on a map', async () => {
    const { page } = owner;
    const d = await deliveryAt('out_for_delivery');
    const proof = {
      recipient_name: 'Ana Silva',
      photo_url: 'https://provas.kamba.ao/fotos/1042.jpg',
      signature_url: 'https://provas.kamba.ao/assinaturas/1042.png',
      location: { lat: -8.8521, lng: 13.2655 },
    };
    await fleet(d.id, 'delivered', { proof });
    const delivered = await waitForStatus(stack, m.tenant.secret_key, d.id, 'delivered');
    expect(delivered.proof_of_delivery).toMatchObject(proof);

    await openDelivery(page, d);
    const card = page.getByRole('region', { name: 'Prova de entrega' });
    expect(await card.innerText()).toContain('Ana Silva');
    expect(await card.getByRole('link', { name: 'Abrir a fotografia' }).getAttribute('href')).toBe(proof.photo_url);
    expect(await card.getByRole('link', { name: 'Abrir a assinatura' }).getAttribute('href')).toBe(proof.signature_url);
    expect(await card.getByRole('link', { name: 'Ver no mapa' }).getAttribute('href')).toContain(
      'mlat=-8.8521&mlon=13.2655',
    );
    await bothWidths(page, 'proof of delivery');
  }, 120_000);

  it('the list shows the recipient and the order; an order number or a phone finds its delivery', async () => {
    const { page } = owner;
    const destination = { ...DESTINATION, contact: { name: 'Domingos Kiala', phone: '+244 931 222 333' } };
    const d = await deliveryTo(destination, { order_id: 'KIANDA-2077' });
    await page.goto(`${stack.url}/dashboard/deliveries`);
    const row = page.locator(`tr[data-delivery="${d.id}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('Domingos Kiala · +244 931 222 333');

    await page.getByLabel('Pesquisar').fill('KIANDA-2077');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => page.locator('tr[data-delivery]').count()).toBe(1);
    expect(page.url()).toContain('order=KIANDA-2077');
    expect(await row.innerText()).toContain('KIANDA-2077');
    await page.getByText('Encontrada pelo número de encomenda KIANDA-2077.').waitFor();
    await bothWidths(page, 'deliveries by order');

    await page.getByRole('button', { name: 'Limpar' }).click();
    // The cleared list first (it reloads and resets the form): a phone typed before that would be wiped.
    await expect.poll(() => page.url()).not.toContain('order=');
    await expect.poll(() => page.locator('tr[data-delivery]').count()).toBeGreaterThan(1);
    const phone = page.getByLabel('Telefone do destinatário');
    await phone.fill('+244931222333'); // the API compares digits
    await expect.poll(() => phone.inputValue()).toBe('+244931222333');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect.poll(() => page.locator('tr[data-delivery]').count()).toBe(1);
    await row.waitFor();
    expect(new URL(page.url()).searchParams.get('phone')).toBe('+244931222333');
  }, 120_000);

  it('settings: max_delivery_attempts, saved through the API (only the fields changed)', async () => {
    const { page } = owner;
    await page.getByRole('link', { name: 'Definições' }).click();
    await page.getByRole('heading', { name: 'Definições de envio', level: 1 }).waitFor();
    const attempts = page.getByLabel('Tentativas de entrega antes de devolver à loja');
    expect(await attempts.inputValue()).toBe('2');
    await bothWidths(page, 'settings');
    await attempts.selectOption('3');
    await page.getByRole('button', { name: 'Guardar', exact: true }).click();
    await page.getByText('Guardado.').waitFor();
    const policy = (await stack.request('GET', '/v1/settings/dispatch', { key: m.tenant.secret_key })).body;
    expect(policy).toMatchObject({ max_delivery_attempts: 3, auto_redispatch: false });
    await page.reload();
    await expect.poll(() => page.getByLabel('Tentativas de entrega antes de devolver à loja').inputValue()).toBe('3');
    await stack.request('PUT', '/v1/settings/dispatch', {
      key: m.tenant.secret_key,
      body: { max_delivery_attempts: 2 },
    });
  }, 120_000);
});

describe('a viewer on the last mile', () => {
  it('reads why a delivery stalled and the settings, and is offered no change', async () => {
    const stalled = await stalledDelivery();
    const { context, page } = await signedIn(users.viewer);
    try {
      await openDelivery(page, stalled);
      const panel = page.getByRole('region', { name: 'Esta entrega está parada' });
      expect(await panel.innerText()).toContain('a transportadora recusou o pedido');
      expect(await panel.getByRole('button').count()).toBe(0);
      await page.goto(`${stack.url}/dashboard/settings`);
      await page.getByText('Só proprietários mudam as definições reais').waitFor();
      expect(await page.getByLabel('Tentativas de entrega antes de devolver à loja').isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Guardar' }).count()).toBe(0);
      await bothWidths(page, 'settings as a viewer');
    } finally {
      await context.close();
    }
  }, 120_000);
});
