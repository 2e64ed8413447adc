// The dashboard in Chromium, for the browser tests of one page each: sign in through the form, and check a page at
// desktop width and at 375 px (axe-core: no serious or critical violation; nothing wider than the screen).
import { expect } from 'vitest';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 375, height: 812 };

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
