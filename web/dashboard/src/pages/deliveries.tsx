// The deliveries list: search, status, date and recipient's phone filters (in the address, so back and reload keep
// them), pages of PAGE_SIZE, and live status: the page asks again every few seconds while it is visible (GET
// /v1/deliveries). The search box takes the merchant's own order number too: on submit, a text that is exactly some
// delivery's metadata.order_id becomes the `order` filter (metadata[order_id]=...), any other text the `search` one.
import { useEffect, useState } from 'preact/hooks';
import { deliveryStatusValues } from '../../../../clients/typescript/src/schema';
import { listDeliveries, type DeliveryRow } from '../api';
import { formatAoa, formatDateTime, formatTime, luandaDayEnd, luandaDayStart } from '../format';
import { statusLabel } from '../i18n';
import { navigate, useRoute, withQuery } from '../router';
import { ErrorBox, Link, Loading, StatusBadge, useApp, useInterval, useLoad, useTitle } from '../ui';

const PAGE_SIZE = 20;
const LIVE_MS = 5000;

interface Filters {
  search: string;
  /** An order number (metadata.order_id), exact. */
  order: string;
  phone: string;
  status: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { search: '', order: '', phone: '', status: '', from: '', to: '' };
type Summary = DeliveryRow;

/**
 * The filters a submitted form stands for: its text is an order number when some delivery has it as its
 * metadata.order_id (asked once, GET /v1/deliveries?metadata[order_id]=...&limit=1), else a search.
 */
async function resolveText(form: Filters): Promise<Filters> {
  const text = (form.order || form.search).trim();
  if (!text) return { ...form, search: '', order: '' };
  const byOrder = await listDeliveries({ limit: 1, metadata: { order_id: text } }).catch(() => null);
  return byOrder?.data.length ? { ...form, search: '', order: text } : { ...form, search: text, order: '' };
}

/** The filters (search, status, dates): applied on submit, by going to the address that names them. */
function FiltersForm({ filters, go }: { filters: Filters; go: (next: Filters) => void }) {
  const { t, lang } = useApp();
  const { query } = useRoute();
  const [form, setForm] = useState<Filters>(filters);
  useEffect(() => setForm(filters), [query.toString()]);
  const input = (name: keyof Filters) => (e: Event) =>
    setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  return (
    <form
      class="filters card"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        void resolveText(form).then(go);
      }}
    >
      <label class="grow">
        {t('search')}
        <input
          type="search"
          name="search"
          placeholder={t('search_hint')}
          value={form.order || form.search}
          onInput={(e) => setForm({ ...form, search: (e.target as HTMLInputElement).value, order: '' })}
        />
      </label>
      <label>
        {t('recipient_phone')}
        <input type="tel" name="phone" autoComplete="off" value={form.phone} onInput={input('phone')} />
      </label>
      <label>
        {t('status')}
        <select name="status" value={form.status} onChange={input('status')}>
          <option value="">{t('all_statuses')}</option>
          {deliveryStatusValues.map((s) => (
            <option key={s} value={s}>
              {statusLabel(lang, s)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('date_from')}
        <input type="date" name="from" value={form.from} onInput={input('from')} />
      </label>
      <label>
        {t('date_to')}
        <input type="date" name="to" value={form.to} onInput={input('to')} />
      </label>
      <div class="actions">
        <button type="submit" class="primary">
          {t('apply_filters')}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setForm(NO_FILTERS);
            go(NO_FILTERS);
          }}
        >
          {t('clear_filters')}
        </button>
      </div>
    </form>
  );
}

function DeliveryRow({ d }: { d: Summary }) {
  const { t, lang } = useApp();
  const contact = d.destination?.contact;
  const order = d.metadata?.order_id;
  const orderId = typeof order === 'string' || typeof order === 'number' ? String(order) : null;
  return (
    <tr data-delivery={d.id}>
      <th scope="row" data-label={t('reference')}>
        <Link to={`/deliveries/${d.id}`} class="mono ref">
          {d.reference}
        </Link>
      </th>
      <td data-label={t('status')}>
        <StatusBadge status={d.status} />
      </td>
      <td data-label={t('created')}>{formatDateTime(lang, d.inserted_at)}</td>
      <td data-label={t('order_id')} class="mono">
        {orderId ?? t('none')}
      </td>
      <td data-label={t('recipient')}>
        {contact?.name || contact?.phone ? [contact.name, contact.phone].filter(Boolean).join(' · ') : t('none')}
      </td>
      <td data-label={t('destination')}>
        {d.destination ? `${d.destination.city} · ${d.destination.address_line}` : t('none')}
      </td>
      <td data-label={t('courier')}>{d.courier?.name ?? t('none')}</td>
      <td data-label={t('fee')} class="num">
        {formatAoa(d.quoted_fee_aoa)}
      </td>
    </tr>
  );
}

function DeliveriesTable({ rows, offset }: { rows: Summary[]; offset: number }) {
  const { t } = useApp();
  return (
    <table class="list">
      <caption class="visually-hidden">{t('page_range', { from: offset + 1, to: offset + rows.length })}</caption>
      <thead>
        <tr>
          <th scope="col">{t('reference')}</th>
          <th scope="col">{t('status')}</th>
          <th scope="col">{t('created')}</th>
          <th scope="col">{t('order_id')}</th>
          <th scope="col">{t('recipient')}</th>
          <th scope="col">{t('destination')}</th>
          <th scope="col">{t('courier')}</th>
          <th scope="col" class="num">
            {t('fee')}
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => (
          <DeliveryRow key={d.id} d={d} />
        ))}
      </tbody>
    </table>
  );
}

function Pager(props: { offset: number; count: number; hasMore: boolean; go: (offset: number) => void }) {
  const { t } = useApp();
  const { offset, count } = props;
  return (
    <nav class="pager" aria-label={t('pagination')}>
      <button
        type="button"
        class="secondary"
        disabled={offset === 0}
        onClick={() => props.go(Math.max(0, offset - PAGE_SIZE))}
      >
        {t('previous')}
      </button>
      <span>{count ? t('page_range', { from: offset + 1, to: offset + count }) : ''}</span>
      <button type="button" class="secondary" disabled={!props.hasMore} onClick={() => props.go(offset + PAGE_SIZE)}>
        {t('next')}
      </button>
    </nav>
  );
}

/** A page of deliveries for the filters, asked again every LIVE_MS while there is no error. */
function useDeliveries(filters: Filters, offset: number) {
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  const list = useLoad(async () => {
    const page = await listDeliveries({
      limit: PAGE_SIZE,
      offset,
      search: filters.search || undefined,
      metadata: filters.order ? { order_id: filters.order } : undefined,
      recipient_phone: filters.phone || undefined,
      status: filters.status || undefined,
      inserted_at_gte: filters.from ? luandaDayStart(filters.from) : undefined,
      inserted_at_lte: filters.to ? luandaDayEnd(filters.to) : undefined,
    });
    setUpdatedAt(new Date());
    return page;
  }, [filters.search, filters.order, filters.phone, filters.status, filters.from, filters.to, offset]);
  useInterval(list.refresh, LIVE_MS, !list.error);
  return { list, updatedAt };
}

export function DeliveriesPage() {
  const { t, lang, can } = useApp();
  const { query } = useRoute();
  useTitle(t('deliveries_title'));
  const filters: Filters = {
    search: query.get('search') ?? '',
    order: query.get('order') ?? '',
    phone: query.get('phone') ?? '',
    status: query.get('status') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
  };
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
  const { list, updatedAt } = useDeliveries(filters, offset);
  const go = (next: Filters, nextOffset = 0) =>
    navigate(withQuery('/deliveries', { ...next, offset: nextOffset || undefined }));

  const rows = list.data?.data ?? [];
  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>{t('deliveries_title')}</h1>
        {can('developer') ? (
          <Link to="/deliveries/new" class="button primary">
            {t('nav_new_delivery')}
          </Link>
        ) : null}
      </div>
      <FiltersForm filters={filters} go={go} />

      {list.loading && !list.data ? <Loading label={t('loading')} /> : null}
      {list.error ? <ErrorBox error={list.error} t={t} onRetry={list.reload} /> : null}
      {list.data ? (
        <>
          <p class="live" aria-live="off">
            <span class="dot" aria-hidden="true" />
            {updatedAt ? t('live_updated', { time: formatTime(lang, updatedAt) }) : ''}
          </p>
          {filters.order && rows.length ? <p class="muted">{t('found_by_order', { order: filters.order })}</p> : null}
          {rows.length === 0 ? (
            <p class="empty">{t('no_deliveries')}</p>
          ) : (
            <DeliveriesTable rows={rows} offset={offset} />
          )}
          <Pager
            offset={offset}
            count={rows.length}
            hasMore={list.data.pagination.has_more}
            go={(nextOffset) => go(filters, nextOffset)}
          />
        </>
      ) : null}
    </>
  );
}
