// Cash on delivery ("Dinheiro (COD)", docs/dashboard.md; design.md "Cash on delivery"): what each courier company
// collected at the door and still owes, what is overdue (GET /v1/cod/balances), the couriers' remittances waiting
// for the merchant to confirm or dispute (./cod-remittances.tsx), and the CSV statement (GET /v1/cod/remittances with
// Accept: text/csv). Money in centavos through formatAoa, as everywhere in the dashboard.
import { useRef, useState } from 'preact/hooks';
import { api, call, fetchBlob, type CodBalance } from '../api';
import { formatAoa, formatDateTime, luandaDayEnd, luandaDayStart } from '../format';
import { withQuery } from '../router';
import { ErrorBox, ListTable, useAction, useApp, useLoad, useTitle, type Loaded } from '../ui';
import { WaitingRemittances } from './cod-remittances';

function BalanceRow({ b }: { b: CodBalance }) {
  const { t, lang } = useApp();
  return (
    <tr data-company={b.company_id}>
      <th scope="row" data-label={t('cod_company')}>
        {b.company_name}
      </th>
      <td data-label={t('cod_collected')} class="num">
        {formatAoa(b.collected_aoa)}
      </td>
      <td data-label={t('cod_remitted')} class="num">
        {formatAoa(b.remitted_aoa)}
      </td>
      <td data-label={t('cod_fee_deducted')} class="num">
        {formatAoa(b.fee_deducted_aoa)}
      </td>
      <td data-label={t('cod_outstanding')} class="num" data-outstanding={b.outstanding_aoa}>
        <strong>{formatAoa(b.outstanding_aoa)}</strong>
      </td>
      <td data-label={t('cod_overdue')} class="num" data-overdue={b.overdue_aoa}>
        {b.overdue_aoa > 0 ? <span class="badge bad">{formatAoa(b.overdue_aoa)}</span> : formatAoa(0)}
      </td>
      <td data-label={t('cod_oldest')}>{formatDateTime(lang, b.oldest_outstanding_at)}</td>
    </tr>
  );
}

function Balances({ balances }: { balances: Loaded<{ data: CodBalance[] }> }) {
  const { t } = useApp();
  return (
    <section class="card" aria-labelledby="h-balances">
      <h2 id="h-balances">{t('cod_balances_title')}</h2>
      <ListTable
        loaded={balances}
        t={t}
        empty={t('cod_no_balances')}
        columns={[
          t('cod_company'),
          { label: t('cod_collected'), num: true },
          { label: t('cod_remitted'), num: true },
          { label: t('cod_fee_deducted'), num: true },
          { label: t('cod_outstanding'), num: true },
          { label: t('cod_overdue'), num: true },
          t('cod_oldest'),
        ]}
        row={(b) => <BalanceRow key={b.company_id} b={b} />}
      />
    </section>
  );
}

/** Saves a Blob as a file, through a link the page clicks for the user. */
function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The statement as CSV: a company (or all), a period of days in Luanda (either end open). */
function Statement({ companies }: { companies: CodBalance[] }) {
  const { t } = useApp();
  const download = useAction();
  const [done, setDone] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(form.current!);
    const day = (name: string) => String(data.get(name) ?? '');
    const from = day('from');
    const to = day('to');
    const path = withQuery('/v1/cod/remittances', {
      company_id: String(data.get('company') ?? ''),
      created_at_gte: from ? luandaDayStart(from) : undefined,
      created_at_lt: to ? new Date(new Date(luandaDayEnd(to)).getTime() + 1).toISOString() : undefined,
    });
    setDone(false);
    void download.run(async () => {
      saveBlob(await fetchBlob(path, 'text/csv'), `cod-statement${from ? `-${from}` : ''}${to ? `-${to}` : ''}.csv`);
      setDone(true);
    });
  };
  return (
    <section class="card" aria-labelledby="h-statement">
      <h2 id="h-statement">{t('cod_export_title')}</h2>
      <p class="muted">{t('cod_export_hint')}</p>
      <form ref={form} onSubmit={submit} class="stack">
        <label>
          {t('cod_company')}
          <select name="company">
            <option value="">{t('cod_company_all')}</option>
            {companies.map((c) => (
              <option key={c.company_id} value={c.company_id}>
                {c.company_name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('cod_from')}
          <input type="date" name="from" />
        </label>
        <label>
          {t('cod_to')}
          <input type="date" name="to" />
        </label>
        {download.error ? <ErrorBox error={download.error} t={t} /> : null}
        <div class="actions">
          <button type="submit" class="primary" disabled={download.busy}>
            {t('cod_download')}
          </button>
          <span role="status">{done ? t('cod_downloaded') : ''}</span>
        </div>
      </form>
    </section>
  );
}

export function CodPage() {
  const { t } = useApp();
  useTitle(t('cod_title'));
  const balances = useLoad(() => call(api.GET('/v1/cod/balances')), []);
  return (
    <>
      <h1 tabIndex={-1}>{t('cod_title')}</h1>
      <p class="muted">{t('cod_intro')}</p>
      <Balances balances={balances} />
      <WaitingRemittances onSettled={balances.refresh} />
      <Statement companies={balances.data?.data ?? []} />
    </>
  );
}
