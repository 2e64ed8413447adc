// A new delivery in three steps on one page: the addresses and parcel, the prices every courier quotes for them
// (POST /v1/quotes), then the chosen quote booked (POST /v1/deliveries with the same addresses and parcel). The
// origin is remembered in this browser for next time.
import { useState } from 'preact/hooks';
import { api, call, type QuoteEntry } from '../api';
import { formatAoa, formatDateTime, parseAoa, parseKg } from '../format';
import { navigate } from '../router';
import { ErrorBox, FieldInput, RoleNote, SubmitActions, useAction, useApp, useTitle } from '../ui';

interface AddressForm {
  address_line: string;
  city: string;
  province: string;
  name: string;
  phone: string;
}
const emptyAddress: AddressForm = { address_line: '', city: 'Luanda', province: 'Luanda', name: '', phone: '' };
const ORIGIN_KEY = 'dashboard-origin';

function savedOrigin(): AddressForm {
  try {
    return { ...emptyAddress, ...JSON.parse(localStorage.getItem(ORIGIN_KEY) ?? '{}') };
  } catch {
    return emptyAddress;
  }
}

const toAddress = (a: AddressForm) => ({
  address_line: a.address_line.trim(),
  city: a.city.trim(),
  province: a.province.trim(),
  ...(a.name.trim() || a.phone.trim() ? { contact: { name: a.name.trim(), phone: a.phone.trim() } } : {}),
});

function AddressFields({
  legend,
  prefix,
  value,
  onChange,
}: {
  legend: string;
  prefix: string;
  value: AddressForm;
  onChange: (a: AddressForm) => void;
}) {
  const { t } = useApp();
  const field = (
    name: keyof AddressForm,
    label: string,
    required = true,
    type: 'text' | 'tel' = 'text',
    autoComplete?: string,
  ) => (
    <FieldInput
      label={label}
      type={type}
      name={`${prefix}-${name}`}
      required={required}
      autoComplete={autoComplete}
      value={value}
      field={name}
      onChange={onChange}
    />
  );
  return (
    <fieldset class="card stack">
      <legend>{legend}</legend>
      {field('address_line', t('address_line'))}
      <div class="row">
        {field('city', t('city'))}
        {field('province', t('province'))}
      </div>
      <div class="row">
        {field('name', t('contact_name'), false, 'text', 'off')}
        {field('phone', t('contact_phone'), false, 'tel', 'off')}
      </div>
    </fieldset>
  );
}

interface ParcelForm {
  weight: string;
  description: string;
  value: string;
}
interface PaymentForm {
  method: 'prepaid' | 'bank_transfer' | 'cod';
  cash: string;
}

function ParcelFields(props: {
  parcel: ParcelForm;
  setParcel: (p: ParcelForm) => void;
  payment: PaymentForm;
  setPayment: (p: PaymentForm) => void;
}) {
  const { t } = useApp();
  const { parcel, setParcel, payment, setPayment } = props;
  return (
    <fieldset class="card stack">
      <legend>{t('parcel')}</legend>
      <div class="row">
        <FieldInput
          label={t('weight_kg')}
          type="text"
          name="weight"
          required
          inputMode="decimal"
          value={parcel}
          field="weight"
          onChange={setParcel}
        />
        <FieldInput
          label={t('declared_value_kz')}
          type="text"
          name="declared"
          inputMode="decimal"
          value={parcel}
          field="value"
          onChange={setParcel}
        />
      </div>
      <FieldInput
        label={t('description')}
        type="text"
        name="description"
        value={parcel}
        field="description"
        onChange={setParcel}
      />
      <div class="row">
        <label>
          {t('payment_method')}
          <select
            name="payment"
            value={payment.method}
            onChange={(e) =>
              setPayment({ ...payment, method: (e.target as HTMLSelectElement).value as PaymentForm['method'] })
            }
          >
            <option value="prepaid">{t('pm_prepaid')}</option>
            <option value="bank_transfer">{t('pm_bank_transfer')}</option>
            <option value="cod">{t('pm_cod')}</option>
          </select>
        </label>
        {payment.method === 'cod' ? (
          <FieldInput
            label={t('cash_collect_kz')}
            type="text"
            name="cash"
            inputMode="decimal"
            required
            value={payment}
            field="cash"
            onChange={setPayment}
          />
        ) : null}
      </div>
    </fieldset>
  );
}

/** The quotes as radio options, and "create delivery" for the chosen one. */
function QuotesForm(props: {
  quotes: QuoteEntry[];
  chosen: string;
  setChosen: (id: string) => void;
  onSubmit: (event: Event) => void;
  creating: ReturnType<typeof useAction>;
}) {
  const { t, lang } = useApp();
  const { quotes, chosen, setChosen, creating } = props;
  return (
    <form onSubmit={props.onSubmit} class="card stack" aria-labelledby="h-quotes">
      <h2 id="h-quotes">{t('quotes_title')}</h2>
      {quotes.length === 0 ? (
        <p class="empty">{t('no_quotes')}</p>
      ) : (
        <fieldset class="quotes">
          <legend class="visually-hidden">{t('quotes_title')}</legend>
          {quotes.map((q) => (
            <label key={q.quote_id} class={`quote ${chosen === q.quote_id ? 'chosen' : ''}`}>
              <input
                type="radio"
                name="quote"
                value={q.quote_id}
                checked={chosen === q.quote_id}
                onChange={() => setChosen(q.quote_id)}
              />
              <span class="company">{q.company_name ?? q.company_slug ?? q.company_id}</span>
              <span class="price">{formatAoa(q.fee_aoa)}</span>
              <span class="muted">
                {t('eta_minutes', { minutes: q.eta_minutes })} ·{' '}
                {t('valid_until', { time: formatDateTime(lang, q.valid_until) })}
              </span>
            </label>
          ))}
        </fieldset>
      )}
      {creating.error ? <ErrorBox error={creating.error} t={t} /> : null}
      {quotes.length ? (
        <SubmitActions
          label={creating.busy ? t('creating') : t('create_delivery')}
          disabled={creating.busy || !chosen}
        />
      ) : null}
    </form>
  );
}

/** The quote request's body from the form: addresses trimmed, the contact only when given, the weight typed in kg, sent in grams. */
function quoteBody(origin: AddressForm, destination: AddressForm, parcel: ParcelForm) {
  const declared = parseAoa(parcel.value);
  return {
    origin: toAddress(origin),
    destination: toAddress(destination),
    parcel: {
      weight_grams: parseKg(parcel.weight) ?? 1,
      ...(parcel.description.trim() ? { description: parcel.description.trim() } : {}),
      ...(declared !== null ? { declared_value_aoa: declared } : {}),
    },
  };
}

export function NewDeliveryPage() {
  const { t, can } = useApp();
  useTitle(t('new_delivery_title'));
  const [origin, setOrigin] = useState<AddressForm>(savedOrigin);
  const [destination, setDestination] = useState<AddressForm>(emptyAddress);
  const [parcel, setParcel] = useState<ParcelForm>({ weight: '1', description: '', value: '' });
  const [payment, setPayment] = useState<PaymentForm>({ method: 'prepaid', cash: '' });
  const [quotes, setQuotes] = useState<QuoteEntry[] | null>(null);
  const [chosen, setChosen] = useState<string>('');
  const quoting = useAction();
  const creating = useAction();

  if (!can('developer')) {
    return (
      <>
        <h1 tabIndex={-1}>{t('new_delivery_title')}</h1>
        <RoleNote text={t('not_allowed_role', { role: t('role_viewer') })} />
      </>
    );
  }

  const body = () => quoteBody(origin, destination, parcel);

  const getQuotes = (event: Event) => {
    event.preventDefault();
    setQuotes(null);
    creating.clear();
    void quoting.run(async () => {
      const answer = await call(api.POST('/v1/quotes', { body: body() }));
      try {
        localStorage.setItem(ORIGIN_KEY, JSON.stringify(origin));
      } catch {
        /* not remembered */
      }
      const sorted = [...answer.data].sort((a, b) => a.fee_aoa - b.fee_aoa);
      setQuotes(sorted);
      setChosen(sorted[0]?.quote_id ?? '');
    });
  };

  const create = (event: Event) => {
    event.preventDefault();
    void creating.run(async () => {
      const cash = parseAoa(payment.cash);
      const created = await call(
        api.POST('/v1/deliveries', {
          body: {
            quote_id: chosen,
            ...body(),
            payment_method: payment.method,
            ...(payment.method === 'cod' ? { cash_collect_aoa: cash ?? 0 } : {}),
          },
        }),
      );
      navigate(`/deliveries/${created.id}`);
    });
  };

  return (
    <>
      <h1 tabIndex={-1}>{t('new_delivery_title')}</h1>
      <form onSubmit={getQuotes} class="stack">
        <div class="grid">
          <AddressFields legend={t('origin')} prefix="origin" value={origin} onChange={setOrigin} />
          <AddressFields legend={t('destination')} prefix="destination" value={destination} onChange={setDestination} />
        </div>
        <ParcelFields parcel={parcel} setParcel={setParcel} payment={payment} setPayment={setPayment} />
        <SubmitActions label={quoting.busy ? t('getting_quotes') : t('get_quotes')} disabled={quoting.busy} />
      </form>
      {quoting.busy ? (
        <p role="status" class="loading">
          {t('getting_quotes')}
        </p>
      ) : null}
      {quoting.error ? <ErrorBox error={quoting.error} t={t} /> : null}

      {quotes ? (
        <QuotesForm quotes={quotes} chosen={chosen} setChosen={setChosen} onSubmit={create} creating={creating} />
      ) : null}
    </>
  );
}
