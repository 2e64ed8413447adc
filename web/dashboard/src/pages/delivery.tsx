// One delivery: every field, the courier, the event timeline (live while it is not final), and cancel. Cancel is
// offered only in the statuses the API cancels from (awaiting_payment, pending, assigned: design.md), never on a
// delivery it would refuse (in transit, out for delivery, stalled); it asks the API (DELETE /v1/deliveries/{id}) and
// shows its answer as it is: 409 when the status changed meanwhile, 422 when the delivery's workflow refused (the
// courier would not release the booking, for one). Below the timeline, the messages to the recipient (./delivery-messages.tsx).
import { useState } from 'preact/hooks';
import { api, call, deliveryNotifications, type Delivery } from '../api';
import { EventDetail, ProofCard, RecoveryPanel, ReturnCard, type FullDelivery } from './delivery-last-mile';
import { formatAoa, formatDateTime, formatWeight } from '../format';
import { eventLabel, sourceLabel } from '../i18n';
import {
  ConfirmButton,
  ErrorBox,
  Link,
  Loading,
  StatusBadge,
  useAction,
  useApp,
  useInterval,
  useLoad,
  useTitle,
  type Loaded,
} from '../ui';
import { CashCard } from './delivery-cash';
import { MessageLog, messagesPending } from './delivery-messages';

const FINAL = new Set(['delivered', 'cancelled', 'failed']);
/** The statuses DELETE /v1/deliveries/{id} accepts (design.md); any other answers 409 delivery_not_cancellable. */
const CANCELLABLE = new Set(['awaiting_payment', 'pending', 'assigned']);
const LIVE_MS = 5000;

type Address = Delivery['origin'];

function AddressBlock({ title, address }: { title: string; address: Address }) {
  const { t } = useApp();
  return (
    <section class="card" aria-labelledby={`h-${title}`}>
      <h2 id={`h-${title}`}>{title}</h2>
      <p>
        {address.address_line}
        <br />
        {address.city}, {address.province}
      </p>
      {address.contact ? (
        <p>
          <span class="muted">{t('contact')}:</span> {address.contact.name ?? t('none')}
          {address.contact.phone ? ` · ${address.contact.phone}` : ''}
        </p>
      ) : null}
    </section>
  );
}

/** A row of facts: label, value, and a key when the label repeats. */
type Fact = [string, preact.ComponentChildren, string?];

/** A definition list without the empty rows. */
function Facts({ rows }: { rows: Fact[] }) {
  return (
    <dl class="facts">
      {rows.map(([label, value, key]) => (
        <div key={key ?? label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function SummaryCard({ d }: { d: Delivery }) {
  const { t, lang } = useApp();
  const pm = d.payment_method ? t(`pm_${d.payment_method}`) : t('none');
  const metadata = d.metadata && Object.keys(d.metadata).length ? Object.entries(d.metadata) : null;
  return (
    <section class="card" aria-labelledby="h-summary">
      <h2 id="h-summary">{t('summary')}</h2>
      <Facts
        rows={[
          [t('reference'), <span class="mono">{d.reference}</span>],
          [t('created'), formatDateTime(lang, d.inserted_at)],
          [t('fee'), formatAoa(d.quoted_fee_aoa)],
          [t('payment_method'), pm],
          ...(d.payment_method === 'cod' ? ([[t('cash_collect'), formatAoa(d.cash_collect_aoa)]] as Fact[]) : []),
          [t('scheduled_pickup'), formatDateTime(lang, d.scheduled_pickup_at)],
          [t('scheduled_delivery'), formatDateTime(lang, d.scheduled_delivery_at)],
          [t('sla_deadline'), formatDateTime(lang, d.sla_deadline_at)],
          // The PIN the recipient would say: shown in test mode only (docs/test-mode.md "The PIN courier"); in live
          // mode it reaches the recipient, never the merchant's team (a courier could ask them for it).
          ...(d.delivery_pin
            ? ([
                [
                  t('delivery_pin'),
                  d.livemode ? (
                    t('delivery_pin_live')
                  ) : (
                    <span data-pin>
                      <span class="mono">{d.delivery_pin}</span> <small>{t('delivery_pin_test_help')}</small>
                    </span>
                  ),
                ],
              ] as Fact[])
            : []),
          [
            t('tracking_page'),
            d.tracking_url ? (
              <a href={d.tracking_url} target="_blank" rel="noopener">
                {t('open_tracking')}
              </a>
            ) : (
              t('none')
            ),
          ],
          ...(metadata
            ? ([
                [
                  t('metadata'),
                  <ul class="plain">
                    {metadata.map(([name, value]) => (
                      <li key={name}>
                        <span class="muted">{name}:</span>{' '}
                        <code class="wrap">{typeof value === 'string' ? value : JSON.stringify(value)}</code>
                      </li>
                    ))}
                  </ul>,
                ],
              ] as Fact[])
            : []),
        ]}
      />
    </section>
  );
}

function CourierCard({ d }: { d: Delivery }) {
  const { t, lang } = useApp();
  const dims = [d.parcel.length_cm, d.parcel.width_cm, d.parcel.height_cm].every((n) => typeof n === 'number')
    ? `${d.parcel.length_cm} × ${d.parcel.width_cm} × ${d.parcel.height_cm} cm`
    : t('none');
  return (
    <section class="card" aria-labelledby="h-courier">
      <h2 id="h-courier">{t('courier')}</h2>
      {d.courier?.name ? (
        <Facts
          rows={[
            [t('courier'), d.courier.name],
            [t('tracking_ref'), <span class="mono">{d.courier.tracking_ref ?? t('none')}</span>],
          ]}
        />
      ) : (
        <p class="muted">{t('no_courier')}</p>
      )}
      <h2 id="h-parcel">{t('parcel')}</h2>
      <Facts
        rows={[
          [t('weight'), formatWeight(d.parcel.weight_grams, lang)],
          [t('description'), d.parcel.description ?? t('none')],
          [t('declared_value'), formatAoa(d.parcel.declared_value_aoa)],
          [t('dimensions'), dims],
        ]}
      />
    </section>
  );
}

function Timeline({ d }: { d: Delivery }) {
  const { t, lang } = useApp();
  return (
    <section class="card" aria-labelledby="h-timeline">
      <h2 id="h-timeline">{t('timeline')}</h2>
      <ol class="timeline">
        {(d.events ?? []).map((e, i) => (
          <li key={e.id ?? i} data-event={e.event_type}>
            <span class="when">{formatDateTime(lang, e.occurred_at)}</span>
            <span class="what">{eventLabel(lang, e.event_type)}</span>
            <EventDetail payload={e.payload} />
            {e.source ? <span class="muted"> · {sourceLabel(lang, e.source)}</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

function NotFound({ delivery }: { delivery: Loaded<Delivery> }) {
  const { t } = useApp();
  return (
    <>
      <h1 tabIndex={-1}>{t('deliveries_title')}</h1>
      <ErrorBox error={delivery.error} t={t} onRetry={delivery.reload} />
      <p>
        <Link to="/deliveries">{t('back_to_deliveries')}</Link>
      </p>
    </>
  );
}

export function DeliveryPage({ id }: { id: string }) {
  const { t, can } = useApp();
  const delivery = useLoad<FullDelivery>(
    () => call(api.GET('/v1/deliveries/{id}', { params: { path: { id } } })),
    [id],
  );
  const cancel = useAction();
  const [cancelled, setCancelled] = useState(false);
  const [recovered, setRecovered] = useState(false);
  const d = delivery.data;
  useTitle(d ? t('delivery_title', { reference: d.reference }) : t('loading'));
  useInterval(delivery.refresh, LIVE_MS, !!d && !FINAL.has(d.status));
  // The messages to the recipient: refreshed while the delivery moves, and after it while one awaits its receipt.
  const messages = useLoad(() => deliveryNotifications(id), [id]);
  useInterval(messages.refresh, LIVE_MS, !!d && (!FINAL.has(d.status) || messagesPending(messages.data?.data)));

  if (delivery.loading && !d) return <Loading label={t('loading')} />;
  if (!d) return <NotFound delivery={delivery} />;

  const doCancel = () =>
    cancel.run(async () => {
      await call(api.DELETE('/v1/deliveries/{id}', { params: { path: { id } } }));
      setCancelled(true);
      delivery.refresh();
    });

  return (
    <>
      <p class="crumb">
        <Link to="/deliveries">← {t('back_to_deliveries')}</Link>
      </p>
      <div class="page-head">
        <h1 tabIndex={-1}>
          {t('delivery_title', { reference: d.reference })} <StatusBadge status={d.status} />
        </h1>
        {can('developer') && CANCELLABLE.has(d.status) ? (
          <div class="actions">
            <ConfirmButton
              danger
              label={t('cancel_delivery')}
              question={t('cancel_confirm', { reference: d.reference })}
              onConfirm={doCancel}
              disabled={cancel.busy}
            />
          </div>
        ) : null}
      </div>
      {can('developer') && !FINAL.has(d.status) && !CANCELLABLE.has(d.status) && !d.recovery ? (
        <p class="muted">{t('cancel_hint')}</p>
      ) : null}
      {cancel.error ? <ErrorBox error={cancel.error} t={t} /> : null}
      {cancelled && !cancel.error ? (
        <p class="notice" role="status">
          {t('cancelled_ok')}
        </p>
      ) : null}
      {delivery.error ? <ErrorBox error={delivery.error} t={t} onRetry={delivery.reload} /> : null}
      {recovered ? (
        <p class="notice" role="status">
          {t('recovered_ok')}
        </p>
      ) : null}
      <RecoveryPanel
        d={d}
        onDone={() => {
          setRecovered(true);
          delivery.refresh();
        }}
      />
      <ReturnCard d={d} />

      <div class="grid">
        <SummaryCard d={d} />
        <CourierCard d={d} />
        <AddressBlock title={t('origin')} address={d.origin} />
        <AddressBlock title={t('destination')} address={d.destination} />
        {d.cod ? <CashCard cod={d.cod} /> : null}
      </div>
      <ProofCard proof={d.proof_of_delivery} />

      <Timeline d={d} />
      <MessageLog messages={messages} />
    </>
  );
}
