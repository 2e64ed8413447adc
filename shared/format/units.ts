// How every surface writes money and weight: the dashboard (web/dashboard), the widget (web/widget) and the tracking
// page (src/pages) import these, so an amount reads the same wherever a merchant or a shopper meets it. Pure, no DOM,
// no Node: safe in the browser, the API and the workflow sandbox.
//
// Money: the API's integer centavos as Angola writes kwanzas (CLDR pt-AO through Intl): `1 800,00 Kz`, a no-break
// space grouping thousands and before `Kz`, whatever the reader's language (an English reader in Luanda still pays
// in Kz). Weight: kilograms, the unit merchants and couriers price by (`0,25 kg`, `1,5 kg`, `12 kg`), in the reader's
// language; the API keeps integer grams.

/** The locale money is written in, whatever the page's language. */
export const MONEY_LOCALE = 'pt-AO';

const money = new Intl.NumberFormat(MONEY_LOCALE, { style: 'currency', currency: 'AOA' });

/** Integer centavos as `1 800,00 Kz`; `—` when there is no amount. */
export function formatAoa(centavos: number | null | undefined): string {
  if (centavos === null || centavos === undefined || !Number.isFinite(centavos)) return '—';
  return money.format(Math.round(centavos) / 100);
}

/**
 * What a person types as an amount of kwanzas (`1 800,50`, `1.800,50`, `1800.5`, `1800`, with or without `Kz`) as
 * integer centavos; null when it is not an amount (or negative).
 */
export function parseAoa(text: string): number | null {
  const cleaned = text.trim().replace(/[\s\u00a0\u202f]|kz/gi, '');
  if (!cleaned) return null;
  if (/^\d{1,3}(\.\d{3})+$/.test(cleaned)) return Number(cleaned.replace(/\./g, '')) * 100; // 1.800: thousands
  const normalised = /,\d{1,2}$/.test(cleaned)
    ? cleaned.replace(/\./g, '').replace(',', '.')
    : cleaned.replace(/,/g, '');
  if (!/^\d+(\.\d+)?$/.test(normalised)) return null;
  const value = Number(normalised);
  return Number.isFinite(value) ? Math.round(value * 100) : null;
}

/** The locale a language writes numbers in (`pt` or `en`; pt-AO when unsure). */
export const numberLocale = (lang: string) => (lang.startsWith('en') ? 'en-GB' : 'pt-AO');

const weights = new Map<string, Intl.NumberFormat>();

/** Integer grams as kilograms in the reader's language: `0,25 kg`, `1,5 kg` (`1.5 kg` in English). */
export function formatWeight(grams: number, lang = 'pt'): string {
  const locale = numberLocale(lang);
  let f = weights.get(locale);
  if (!f) weights.set(locale, (f = new Intl.NumberFormat(locale, { maximumFractionDigits: 3 })));
  return `${f.format(grams / 1000)}\u00a0kg`;
}

/**
 * What a person types as kilograms (`1,5`, `1.5`, `2`) as integer grams (at least 1); null when it is not a positive
 * weight.
 */
export function parseKg(text: string): number | null {
  const cleaned = text.trim().replace(/\s|kg/gi, '').replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(cleaned)) return null;
  const kg = Number(cleaned);
  return kg > 0 ? Math.max(1, Math.round(kg * 1000)) : null;
}
