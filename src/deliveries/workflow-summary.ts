// What an operator sees of a delivery's workflow in the Temporal UI and `temporal workflow describe`: its static
// summary (one line: reference, shop, courier) and static details (markdown), set when the workflow starts
// (src/deliveries/start.ts). Cities and provinces only: no street address, name or phone goes to Temporal.
import type { WorkflowSummaryFacts } from './start-repository.js';

const aoa = new Intl.NumberFormat('pt-AO', { style: 'currency', currency: 'AOA' });
/** Centavos as the merchant reads them ("1 800,00 Kz"), with plain spaces for the UI's markdown. */
const money = (centavos: number) => aoa.format(centavos / 100).replace(/\s/g, ' ');
/** "Lobito, Benguela"; "Luanda" where the city names its province. */
const place = (p: { city: string | null; province: string | null }) =>
  [...new Set([p.city, p.province].filter(Boolean))].join(', ') || '?';
/** Temporal markdown: keeps a merchant's text from turning into markup. */
const plain = (s: string) => s.replace(/[\\`*_[\]<>#|~]/g, (c) => `\\${c}`).replace(/\s+/g, ' ');

/** "DLV-7K2M9XQ4TP · Loja Kianda · Rapido Express", with "[TEST] " first for a test-mode delivery. */
export function workflowStaticSummary(f: WorkflowSummaryFacts): string {
  const line = [f.reference, f.shop_name, f.courier_name].map(plain).join(' · ');
  return f.livemode ? line : `[TEST] ${line}`;
}

/** The details pane: tenant, mode, route, parcel, money, the delivery id and (for a return) what it brings back. */
export function workflowStaticDetails(f: WorkflowSummaryFacts): string {
  const payment =
    f.payment_method === 'cod' && f.cash_collect_aoa !== null
      ? `cash on delivery, **${money(f.cash_collect_aoa)}** to collect`
      : (f.payment_method ?? '?');
  return [
    `**Shop** ${plain(f.shop_name)} · tenant \`${f.tenant_id}\``,
    `**Mode** ${f.livemode ? 'live' : 'test (a test key: no real courier, no real money)'}`,
    `**Route** ${plain(place(f.origin))} → ${plain(place(f.destination))}`,
    `**Courier** ${plain(f.courier_name)} (\`${f.courier_slug}\`) at start; the CourierSlug search attribute follows a failover`,
    `**Fee** ${money(f.quoted_fee_aoa)} · **payment** ${payment} · **parcel** ${(f.weight_grams / 1000).toLocaleString('en')} kg`,
    `**Delivery** \`${f.delivery_id}\` · reference ${f.reference}`,
    ...(f.return_of ? [`**Return to sender** of delivery \`${f.return_of}\``] : []),
  ].join('\n\n');
}
