// The dashboard in Chromium, for the browser tests of one page each: sign in through the form, and check a page at
// desktop width and at 375 px (axe-core: no serious or critical violation; nothing wider than the screen).
import { expect } from 'vitest';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Role } from '../../src/users/roles.js';
import { createUser } from '../../src/users/service.js';
import type { Stack } from './stack.js';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 375, height: 812 };

/** Headless Chromium as every dashboard test runs it (the path from the global setup's `inject('chromium')`). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
}

/** A dashboard user of `tenantId` with `role`, who has set `password` through the invitation link; returns the email. */
export async function dashboardUser(stack: Stack, tenantId: string, role: Role, email: string, password: string) {
  const created = await createUser(stack.pool, stack.config.dashboard, stack.url, { tenantId, email, role });
  const token = new URL(created.set_password_url).hash.replace(/^#token=/, '');
  expect((await stack.request('POST', '/dashboard/api/password', { body: { token, password } })).status).toBe(204);
  return email;
}

/** A new pt-AO context (Luanda time) signed in as `email` through the sign-in form, on the deliveries list. */
export async function signInDashboard(
  browser: Browser,
  baseUrl: string,
  email: string,
  password: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'pt-AO', timezoneId: 'Africa/Luanda' });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(`${baseUrl}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Palavra-passe').fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByRole('heading', { name: 'Entregas', level: 1 }).waitFor();
  return { context, page };
}

/** axe-core with no serious or critical violation, at desktop width and at 375 px (and nothing wider than it). */
export async function bothWidths(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await page.evaluate(axe.source);
    const violations = await page.evaluate(async () => {
      const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
      return result.violations
        .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
        .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
    });
    expect(violations, `axe on ${name} at ${viewport.width} px`).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} at ${viewport.width} px`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize(DESKTOP);
}
