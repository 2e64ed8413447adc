// The one money formatter and the one weight unit (shared/format/units.ts) the dashboard, the widget and the tracking
// page share: Angolan kwanzas as CLDR pt-AO writes them, whatever the language; weight in kilograms.
import { describe, expect, it } from 'vitest';
import { formatAoa, formatWeight, parseAoa, parseKg } from '../../shared/format/units.js';
import { formatFee } from '../../web/widget/dom.js';
import { renderTrackingPage } from '../../src/pages/tracking-page.js';

const NBSP = '\u00a0';

describe('money', () => {
  it('writes integer centavos as pt-AO kwanzas: a no-break space groups thousands and comes before Kz', () => {
    expect(formatAoa(180_000)).toBe(`1${NBSP}800,00${NBSP}Kz`);
    expect(formatAoa(123_456_750)).toBe(`1${NBSP}234${NBSP}567,50${NBSP}Kz`);
    expect(formatAoa(0)).toBe(`0,00${NBSP}Kz`);
    expect(formatAoa(5)).toBe(`0,05${NBSP}Kz`);
    expect(formatAoa(-150_000)).toBe(`-1${NBSP}500,00${NBSP}Kz`);
    expect(formatAoa(null)).toBe('—');
    expect(formatAoa(undefined)).toBe('—');
  });

  it('is the same text in the widget and on the tracking page', () => {
    expect(formatFee(180_000)).toBe(formatAoa(180_000));
    const page = renderTrackingPage(
      {
        reference: 'DLV-1',
        status: 'out_for_delivery',
        events: [],
        livemode: true,
        shop_name: 'Loja Kianda',
        courier_name: null,
        expected_at: null,
        cash_due_aoa: 180_000,
        help: { email: null, phone: null, url: null },
      },
      'pt',
      '/track/x',
    );
    expect(page).toContain(`<dt>A pagar na entrega</dt><dd data-v="cash-due">${formatAoa(180_000)}</dd>`);
  });

  it('reads what a person types', () => {
    expect(parseAoa('1 800,50')).toBe(180_050);
    expect(parseAoa(`1${NBSP}800,50 Kz`)).toBe(180_050);
    expect(parseAoa('1.800,50')).toBe(180_050);
    expect(parseAoa('1.800')).toBe(180_000);
    expect(parseAoa('1800.5')).toBe(180_050);
    expect(parseAoa('1800')).toBe(180_000);
    expect(parseAoa('')).toBeNull();
    expect(parseAoa('abc')).toBeNull();
    expect(parseAoa('-5')).toBeNull();
    // What the formatter writes, it reads back.
    for (const centavos of [0, 5, 99_999, 180_000, 123_456_750]) expect(parseAoa(formatAoa(centavos))).toBe(centavos);
  });
});

describe('weight', () => {
  it('writes grams as kilograms in the reader’s language', () => {
    expect(formatWeight(250)).toBe(`0,25${NBSP}kg`);
    expect(formatWeight(1500)).toBe(`1,5${NBSP}kg`);
    expect(formatWeight(12_000)).toBe(`12${NBSP}kg`);
    expect(formatWeight(1500, 'en')).toBe(`1.5${NBSP}kg`);
    expect(formatWeight(1500, 'pt-AO')).toBe(`1,5${NBSP}kg`);
    expect(formatWeight(1500, 'en-GB')).toBe(`1.5${NBSP}kg`);
  });

  it('reads kilograms as integer grams', () => {
    expect(parseKg('1,5')).toBe(1500);
    expect(parseKg('1.5 kg')).toBe(1500);
    expect(parseKg('0,0001')).toBe(1);
    expect(parseKg('2')).toBe(2000);
    expect(parseKg('0')).toBeNull();
    expect(parseKg('')).toBeNull();
    expect(parseKg('x')).toBeNull();
  });
});
