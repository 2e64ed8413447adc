// API keys of the mode the dashboard is in: create (a secret key shown whole once), revoke, and a publishable key's
// allowed origins and widget payment rules (PATCH /v1/api_keys/{id}). A publishable key is public (it sits in the
// shop's pages): it is shown whole at any time, with a copy button. Live keys take an owner; test keys a developer
// (the API refuses the rest: 403 forbidden), so a developer manages their sandbox in test mode with no operator.
import { useState } from 'preact/hooks';
import { api, call, updateApiKey, type ApiKey } from '../api';
import { formatAoa, formatDateTime, parseAoa } from '../format';
import {
  ErrorBox,
  ListTable,
  RoleNote,
  RowDangerButton,
  SecretBox,
  SubmitActions,
  useAction,
  useApp,
  useLoad,
  useTitle,
} from '../ui';

const lines = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

function OriginsEditor({ apiKey, onSaved }: { apiKey: ApiKey; onSaved: () => void }) {
  const { t } = useApp();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(apiKey.allowed_origins.join('\n'));
  const save = useAction();
  if (!open) {
    return (
      <button type="button" class="secondary small edit" onClick={() => setOpen(true)}>
        {t('edit_origins')}
      </button>
    );
  }
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run(async () => {
          await updateApiKey(apiKey.id, { allowed_origins: lines(text) });
          setOpen(false);
          onSaved();
        });
      }}
    >
      <label>
        {t('allowed_origins')}
        <textarea rows={3} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      </label>
      {save.error ? <ErrorBox error={save.error} t={t} /> : null}
      <div class="actions">
        <button type="submit" class="primary small" disabled={save.busy}>
          {t('save')}
        </button>
        <button type="button" class="secondary small" onClick={() => setOpen(false)}>
          {t('keep')}
        </button>
      </div>
    </form>
  );
}

type Method = NonNullable<ApiKey['widget_payment_methods']>[number];
const METHODS: Method[] = ['prepaid', 'bank_transfer', 'cod'];
const METHOD_WORDS = { prepaid: 'pm_prepaid', bank_transfer: 'pm_bank_transfer', cod: 'pm_cod' } as const;

/** A publishable key's widget payment rules in words: the methods, and the cash a cod delivery collects. */
function PaymentRules({ apiKey }: { apiKey: ApiKey }) {
  const { t } = useApp();
  const methods = apiKey.widget_payment_methods ?? [];
  const amount = apiKey.widget_cod_amount_aoa;
  return (
    <span class="block" data-payment-rules>
      {methods.map((m) => t(METHOD_WORDS[m])).join(', ') || t('none')}
      {methods.includes('cod') ? (
        <span class="muted block">
          {amount != null ? t('widget_cod_fixed', { amount: formatAoa(amount) }) : t('widget_cod_from_widget')}
        </span>
      ) : null}
    </span>
  );
}

/** Edits the payment rules: a checkbox per method (at least one) and, with cod, the amount in Kz (empty: the widget's). */
function PaymentRulesEditor({ apiKey, onSaved }: { apiKey: ApiKey; onSaved: () => void }) {
  const { t } = useApp();
  const [open, setOpen] = useState(false);
  const [methods, setMethods] = useState<Method[]>(apiKey.widget_payment_methods ?? []);
  const [amount, setAmount] = useState(
    apiKey.widget_cod_amount_aoa != null ? formatAoa(apiKey.widget_cod_amount_aoa).replace(/\u00a0Kz$/, '') : '',
  );
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useAction();
  if (!open) {
    return (
      <button type="button" class="secondary small edit" data-edit="payment-rules" onClick={() => setOpen(true)}>
        {t('edit_payment_rules')}
      </button>
    );
  }
  const toggle = (m: Method, on: boolean) => setMethods(METHODS.filter((x) => (x === m ? on : methods.includes(x))));
  const submit = (e: Event) => {
    e.preventDefault();
    const withCod = methods.includes('cod');
    const cents = withCod && amount.trim() ? parseAoa(amount) : null;
    if (!methods.length) return setInvalid(t('widget_methods_required'));
    if (withCod && amount.trim() && !(cents && cents > 0)) return setInvalid(t('widget_cod_amount_invalid'));
    setInvalid(null);
    void save.run(async () => {
      await updateApiKey(apiKey.id, { widget_payment_methods: methods, widget_cod_amount_aoa: cents });
      setOpen(false);
      onSaved();
    });
  };
  return (
    <form class="stack" onSubmit={submit} data-form="payment-rules">
      <fieldset class="stack">
        <legend>{t('widget_payments')}</legend>
        {METHODS.map((m) => (
          <label class="inline" key={m}>
            <input
              type="checkbox"
              name={`method_${m}`}
              checked={methods.includes(m)}
              onChange={(e) => toggle(m, (e.target as HTMLInputElement).checked)}
            />
            {t(METHOD_WORDS[m])}
          </label>
        ))}
        {methods.includes('cod') ? (
          <label>
            {t('widget_cod_amount_kz')}
            <input
              name="cod_amount"
              inputMode="decimal"
              value={amount}
              onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
            />
            <span class="muted">{t('widget_cod_amount_hint')}</span>
          </label>
        ) : null}
      </fieldset>
      {invalid ? (
        <p class="error" role="alert">
          {invalid}
        </p>
      ) : null}
      {save.error ? <ErrorBox error={save.error} t={t} /> : null}
      <div class="actions">
        <button type="submit" class="primary small" disabled={save.busy}>
          {t('save')}
        </button>
        <button type="button" class="secondary small" onClick={() => setOpen(false)}>
          {t('keep')}
        </button>
      </div>
    </form>
  );
}

/** The whole publishable key with a copy button (it is public); the prefix of a secret key or an older publishable one. */
function KeyText({ apiKey }: { apiKey: ApiKey }) {
  const { t } = useApp();
  const [copied, setCopied] = useState(false);
  const whole = apiKey.publishable_key;
  if (!whole) {
    return (
      <>
        <span class="mono">{apiKey.prefix}…</span>
        {apiKey.kind === 'publishable' ? <span class="muted block">{t('publishable_key_old')}</span> : null}
      </>
    );
  }
  return (
    <>
      <code class="mono wrap" data-publishable-key>
        {whole}
      </code>{' '}
      <button
        type="button"
        class="secondary small"
        aria-label={t('copy_key', { prefix: apiKey.prefix })}
        onClick={() =>
          navigator.clipboard?.writeText(whole).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {t('copy')}
      </button>
      <span role="status">{copied ? t('copied') : ''}</span>
    </>
  );
}

/**
 * A key: the key (a publishable one whole), kind, status, a publishable key's origins and widget payment rules
 * (editable), and revoke for those who may manage.
 */
function KeyRow(props: { k: ApiKey; mayManage: boolean; revoke: ReturnType<typeof useAction>; refresh: () => void }) {
  const { t, lang } = useApp();
  const { k, mayManage, refresh } = props;
  // A revoked key stays in the list, marked revoked.
  const revokeKey = async (id: string) => {
    await call(api.POST('/v1/api_keys/{id}/revoke', { params: { path: { id } } }));
    refresh();
  };
  return (
    <tr data-key={k.id} data-status={k.status}>
      <th scope="row" data-label={t('key')}>
        <KeyText apiKey={k} />
      </th>
      <td data-label={t('kind')}>{k.kind === 'secret' ? t('kind_secret') : t('kind_publishable')}</td>
      <td data-label={t('status')}>
        <span class={`badge ${k.status === 'active' ? 'ok' : 'off'}`}>
          {k.status === 'active' ? t('active') : t('revoked')}
        </span>
        {k.revoked_at ? <span class="muted block">{formatDateTime(lang, k.revoked_at)}</span> : null}
      </td>
      <td data-label={t('allowed_origins')}>
        {k.kind === 'publishable' ? (
          <>
            <span class="mono wrap">{k.allowed_origins.join(', ') || t('none')}</span>
            {mayManage && k.status === 'active' ? <OriginsEditor apiKey={k} onSaved={refresh} /> : null}
          </>
        ) : (
          t('none')
        )}
      </td>
      <td data-label={t('widget_payments')}>
        {k.kind === 'publishable' ? (
          <>
            <PaymentRules apiKey={k} />
            {mayManage && k.status === 'active' ? <PaymentRulesEditor apiKey={k} onSaved={refresh} /> : null}
          </>
        ) : (
          t('none')
        )}
      </td>
      <td data-label={t('created')}>{formatDateTime(lang, k.created_at)}</td>
      {mayManage ? (
        <td>
          {k.status === 'active' ? (
            <RowDangerButton
              label={t('revoke')}
              question={t('revoke_confirm', { prefix: k.prefix })}
              action={props.revoke}
              change={() => revokeKey(k.id)}
            />
          ) : null}
        </td>
      ) : null}
    </tr>
  );
}

type Created = { key: string; kind: ApiKey['kind'] } | null;

/** A new key of the dashboard's mode: secret, or publishable with its allowed origins; the whole key goes to `onCreated`. */
function CreateKeyForm({ onCreated }: { onCreated: (created: Created) => void }) {
  const { t } = useApp();
  const create = useAction();
  const [kind, setKind] = useState<'secret' | 'publishable'>('secret');
  const [origins, setOrigins] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    void create.run(async () => {
      const key = await call(
        api.POST('/v1/api_keys', {
          body: { kind, ...(kind === 'publishable' ? { allowed_origins: lines(origins) } : {}) },
        }),
      );
      onCreated(key.secret ? { key: key.secret, kind } : null);
      setOrigins('');
    });
  };
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="h-create-key">
      <h2 id="h-create-key">{t('create_key')}</h2>
      <label>
        {t('kind')}
        <select
          name="kind"
          value={kind}
          onChange={(e) => setKind((e.target as HTMLSelectElement).value as typeof kind)}
        >
          <option value="secret">{t('kind_secret')}</option>
          <option value="publishable">{t('kind_publishable')}</option>
        </select>
      </label>
      {kind === 'publishable' ? (
        <label>
          {t('allowed_origins')}
          <textarea
            name="origins"
            rows={3}
            placeholder={t('origins_hint')}
            value={origins}
            onInput={(e) => setOrigins((e.target as HTMLTextAreaElement).value)}
          />
        </label>
      ) : null}
      {create.error ? <ErrorBox error={create.error} t={t} /> : null}
      <SubmitActions label={t('create_key')} disabled={create.busy} />
    </form>
  );
}

export function ApiKeysPage() {
  const { t, can, mode } = useApp();
  useTitle(t('keys_title'));
  const list = useLoad(() => call(api.GET('/v1/api_keys', { params: { query: { limit: 100 } } })), []);
  const revoke = useAction();
  const [created, setCreated] = useState<Created>(null);
  const mayManage = can(mode === 'live' ? 'owner' : 'developer');

  return (
    <>
      <h1 tabIndex={-1}>{t('keys_title')}</h1>
      {!mayManage ? <RoleNote text={t('live_keys_owner')} /> : null}
      {mode === 'test' ? <p class="muted">{t('keys_sandbox_hint')}</p> : null}
      {created ? (
        <SecretBox
          label={t('key')}
          value={created.key}
          note={t(created.kind === 'publishable' ? 'key_publishable_readable' : 'key_once')}
        />
      ) : null}
      {revoke.error ? <ErrorBox error={revoke.error} t={t} /> : null}
      <ListTable
        loaded={list}
        t={t}
        empty={t('no_keys')}
        columns={[
          t('key'),
          t('kind'),
          t('status'),
          t('allowed_origins'),
          t('widget_payments'),
          t('created'),
          mayManage && { label: t('revoke'), hidden: true },
        ]}
        row={(k) => <KeyRow key={k.id} k={k} mayManage={mayManage} revoke={revoke} refresh={list.refresh} />}
      />

      {mayManage ? (
        <CreateKeyForm
          onCreated={(next) => {
            setCreated(next);
            list.refresh();
          }}
        />
      ) : null}
    </>
  );
}
