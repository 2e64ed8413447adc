// A cash-on-delivery delivery's cash line (its `cod` object, design.md "Cash on delivery"): what the courier is to
// collect, what it collected, remitted and kept as its fee, where the cash stands, and the remittance that covers it.
import type { Delivery } from '../api';
import { formatAoa } from '../format';
import type { MessageKey } from '../i18n';
import { useApp } from '../ui';

type Cod = NonNullable<Delivery['cod']>;

const STATUS: Record<Cod['status'], MessageKey> = {
  awaiting_collection: 'cod_status_awaiting_collection',
  collected: 'cod_status_collected',
  remitted: 'cod_status_remitted',
  confirmed: 'cod_status_confirmed',
};
const KIND: Record<Cod['status'], string> = {
  awaiting_collection: '',
  collected: 'bad',
  remitted: '',
  confirmed: 'ok',
};

export function CashCard({ cod }: { cod: Cod }) {
  const { t } = useApp();
  const differs = cod.collected_aoa !== null && cod.collected_aoa !== cod.expected_aoa;
  const rows: [string, preact.ComponentChildren][] = [
    [
      t('cod_status'),
      <span class={`badge ${KIND[cod.status]}`} data-cod-status={cod.status}>
        {t(STATUS[cod.status])}
      </span>,
    ],
    [t('cod_expected'), formatAoa(cod.expected_aoa)],
    [t('cod_collected'), differs ? <strong>{formatAoa(cod.collected_aoa)}</strong> : formatAoa(cod.collected_aoa)],
    [t('cod_remitted'), formatAoa(cod.remitted_aoa)],
    [t('cod_fee_deducted'), formatAoa(cod.fee_deducted_aoa)],
    ...(cod.remittance_id
      ? ([[t('cod_remittance_ref'), <span class="mono wrap">{cod.remittance_id}</span>]] as [
          string,
          preact.ComponentChildren,
        ][])
      : []),
  ];
  return (
    <section class="card" aria-labelledby="h-cash" data-cod>
      <h2 id="h-cash">{t('cash_title')}</h2>
      <dl class="facts">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
