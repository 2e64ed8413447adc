// The recipients' tracking page is readable in both colour schemes (#27): in Chromium, with prefers-color-scheme
// emulated light and dark, every progress step (the completed ones above all: they were 1.1:1 in dark mode) and every
// other text of the page has at least the 4.5:1 contrast WCAG 2.x AA asks of normal text, by our own computation of
// the computed colours and by axe-core's color-contrast rule. The page is the server's HTML (renderTrackingPage),
// set into a blank page: no API needed.
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderTrackingPage, type TrackingPageInput } from '../../src/pages/tracking-page.js';

const chromiumSetup = inject('chromium');
if ('error' in chromiumSetup) throw new Error(chromiumSetup.error);

const VIEW: TrackingPageInput = {
  reference: 'DLV-7KQ2M9XH4T',
  status: 'in_transit',
  events: [
    { event_type: 'delivery.created', occurred_at: '2026-11-23T09:15:00.000Z' },
    { event_type: 'delivery.assigned', occurred_at: '2026-11-23T09:17:00.000Z' },
    { event_type: 'delivery.in_transit', occurred_at: '2026-11-23T09:40:00.000Z' },
  ],
  livemode: false,
  shop_name: 'Loja Kianda',
  courier_name: 'Kandengue Express',
  expected_at: '2026-11-23T11:00:00.000Z',
  help: { email: 'ajuda@loja-kianda.ao', phone: '+244 923 000 111', url: null },
};

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: chromiumSetup.path,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

interface StepContrast {
  text: string;
  done: boolean;
  ratio: number;
}

/** Each progress step's contrast: its computed text colour against the first opaque background behind it. */
async function stepContrasts(page: Page): Promise<StepContrast[]> {
  return page.evaluate(() => {
    const rgb = (css: string) => {
      const m = css.match(/rgba?\(([^)]+)\)/);
      if (!m) throw new Error(`unexpected colour ${css}`);
      const [r, g, b, a = 1] = m[1]
        .split(/[ ,/]+/)
        .filter(Boolean)
        .map(Number);
      return { r, g, b, a };
    };
    const luminance = ({ r, g, b }: { r: number; g: number; b: number }) => {
      const lin = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const background = (el: Element | null) => {
      for (; el; el = el.parentElement) {
        const c = rgb(getComputedStyle(el).backgroundColor);
        if (c.a === 1) return c;
      }
      return { r: 255, g: 255, b: 255, a: 1 };
    };
    return [...document.querySelectorAll('ol.steps li')].map((li) => {
      const fg = luminance(rgb(getComputedStyle(li).color));
      const bg = luminance(background(li));
      return {
        text: li.textContent ?? '',
        done: li.classList.contains('done'),
        ratio: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05),
      };
    });
  });
}

describe('tracking page contrast (#27)', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`${scheme}: every progress step, completed or not, is at least 4.5:1; axe finds no contrast violation`, async () => {
      const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 375, height: 800 } });
      try {
        const page = await context.newPage();
        await page.setContent(renderTrackingPage(VIEW, 'en', '/track/x', new Date('2026-11-23T10:00:00.000Z')));
        expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(scheme === 'dark');
        const steps = await stepContrasts(page);
        expect(steps.some((s) => s.done)).toBe(true);
        expect(steps.some((s) => !s.done)).toBe(true);
        for (const s of steps)
          expect(s.ratio, `${scheme} step "${s.text}" (${s.done ? 'done' : 'to come'})`).toBeGreaterThanOrEqual(4.5);

        await page.evaluate(axe.source);
        const violations = await page.evaluate(async () => {
          const result = await (window as any).axe.run(document, {
            runOnly: ['color-contrast'],
            resultTypes: ['violations'],
          });
          return result.violations.flatMap((v: any) =>
            v.nodes.map((n: any) => `${n.target.join(' ')}: ${n.failureSummary}`),
          );
        });
        expect(violations).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
