// The dispatch settings of the mode the dashboard is in (GET/PUT /v1/settings/dispatch, docs/deliveries.md): how many
// delivery attempts before a parcel goes back to the shop (max_delivery_attempts, design.md "Attempts, returns and
// proof of delivery") and automatic failover before pickup. Saving sends only the fields changed (a PUT changes the
// fields it names). Live settings take an owner, test settings a developer (src/users/roles.ts); others read them.
// Below them, the SMS to recipients (./settings-notifications.tsx) and the shop profile (./settings-shop.tsx), which is
// the account's, one for both modes.
import { useEffect, useState } from 'preact/hooks';
import { api, call, saveDispatchSettings, type DispatchSettings } from '../api';
import { formatAoa, parseAoa } from '../format';
import { ErrorBox, Loading, RoleNote, SubmitActions, useAction, useApp, useLoad, useTitle } from '../ui';
import { NotificationSettingsSection } from './settings-notifications';
import { ShopSection } from './settings-shop';

/** design.md: 1 to 5, 2 when the tenant never chose. */
const ATTEMPTS = [1, 2, 3, 4, 5];
const DEFAULT_ATTEMPTS = 2;

interface Form {
  max_delivery_attempts: string;
  auto_redispatch: boolean;
  max_fee_increase: string;
  max_redispatches: string;
  assign_timeout_minutes: string;
}

const formOf = (s: DispatchSettings): Form => ({
  max_delivery_attempts: String(s.max_delivery_attempts ?? DEFAULT_ATTEMPTS),
  auto_redispatch: s.auto_redispatch,
  max_fee_increase: formatAoa(s.max_fee_increase_aoa).replace(/\u00a0Kz$/, ''),
  max_redispatches: String(s.max_redispatches),
  assign_timeout_minutes: String(s.assign_timeout_minutes),
});

/** The fields of `form` that differ from `saved`, as the PUT body (the API checks the ranges and answers 422). */
function changes(saved: DispatchSettings, form: Form): Partial<DispatchSettings> {
  const next: Partial<DispatchSettings> = {
    max_delivery_attempts: Number(form.max_delivery_attempts),
    auto_redispatch: form.auto_redispatch,
    max_fee_increase_aoa: parseAoa(form.max_fee_increase) ?? Number.NaN,
    max_redispatches: Number(form.max_redispatches),
    assign_timeout_minutes: Number(form.assign_timeout_minutes),
  };
  const was: Partial<DispatchSettings> = {
    ...saved,
    max_delivery_attempts: Number(formOf(saved).max_delivery_attempts),
  };
  return Object.fromEntries(
    Object.entries(next).filter(([name, value]) => value !== was[name as keyof DispatchSettings]),
  ) as Partial<DispatchSettings>;
}

/** Automatic failover before pickup (design.md "Decisions added in the second round"). */
function FailoverFields({ form, setForm }: { form: Form; setForm: (next: Form) => void }) {
  const { t } = useApp();
  const text = (name: keyof Form) => (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value });
  return (
    <>
      <label class="inline">
        <input
          type="checkbox"
          name="auto_redispatch"
          checked={form.auto_redispatch}
          onChange={(e) => setForm({ ...form, auto_redispatch: (e.target as HTMLInputElement).checked })}
        />
        {t('auto_redispatch')}
      </label>
      <div class="row">
        <label>
          {t('max_fee_increase_kz')}
          <input
            name="max_fee_increase"
            inputMode="decimal"
            value={form.max_fee_increase}
            onInput={text('max_fee_increase')}
          />
        </label>
        <label>
          {t('max_redispatches')}
          <input
            type="number"
            name="max_redispatches"
            min={0}
            max={10}
            value={form.max_redispatches}
            onInput={text('max_redispatches')}
          />
        </label>
        <label>
          {t('assign_timeout_minutes')}
          <input
            type="number"
            name="assign_timeout_minutes"
            min={1}
            max={1440}
            value={form.assign_timeout_minutes}
            onInput={text('assign_timeout_minutes')}
          />
        </label>
      </div>
    </>
  );
}

function SettingsForm({ saved, onSaved }: { saved: DispatchSettings; onSaved: (s: DispatchSettings) => void }) {
  const { t, mode, can } = useApp();
  const allowed = can(mode === 'live' ? 'owner' : 'developer');
  const [form, setForm] = useState(() => formOf(saved));
  const [done, setDone] = useState(false);
  const save = useAction();
  useEffect(() => setForm(formOf(saved)), [saved]);
  const update = (next: Form) => {
    setDone(false);
    setForm(next);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void save.run(async () => {
      const body = changes(saved, form);
      const next = Object.keys(body).length ? await saveDispatchSettings(body) : saved;
      onSaved(next);
      setDone(true);
    });
  };
  return (
    <form class="card stack" onSubmit={submit}>
      <fieldset class="stack" disabled={!allowed}>
        <legend class="visually-hidden">{t('settings_title')}</legend>
        <label>
          {t('max_delivery_attempts')}
          <select
            name="max_delivery_attempts"
            value={form.max_delivery_attempts}
            onChange={(e) => update({ ...form, max_delivery_attempts: e.currentTarget.value })}
          >
            {ATTEMPTS.map((n) => (
              <option key={n} value={String(n)}>
                {n}
              </option>
            ))}
          </select>
          <span class="muted">{t('max_delivery_attempts_hint')}</span>
        </label>
        <FailoverFields form={form} setForm={update} />
      </fieldset>
      {allowed ? <SubmitActions label={t('save')} disabled={save.busy} /> : null}
      {save.error ? <ErrorBox error={save.error} t={t} /> : null}
      {done && !save.error ? (
        <p class="notice" role="status">
          {t('saved')}
        </p>
      ) : null}
    </form>
  );
}

export function SettingsPage() {
  const { t, mode, can } = useApp();
  useTitle(t('settings_title'));
  const loaded = useLoad(async () => (await call(api.GET('/v1/settings/dispatch'))) as DispatchSettings, [mode]);
  const [saved, setSaved] = useState<DispatchSettings | null>(null);
  const current = saved ?? loaded.data;
  return (
    <>
      <h1 tabIndex={-1}>{t('settings_title')}</h1>
      <p class="muted">{t('settings_hint')}</p>
      {!can(mode === 'live' ? 'owner' : 'developer') ? <RoleNote text={t('settings_live_owner')} /> : null}
      {loaded.loading && !loaded.data ? <Loading label={t('loading')} /> : null}
      {loaded.error ? <ErrorBox error={loaded.error} t={t} onRetry={loaded.reload} /> : null}
      {current ? <SettingsForm saved={current} onSaved={setSaved} /> : null}
      <NotificationSettingsSection />
      <ShopSection />
    </>
  );
}
