// The SMS to recipients of the mode the dashboard is in (GET/PUT /v1/settings/notifications, docs/recipients.md
// "Settings"): on or off, the language of the messages, the sender id. Saving sends only the fields changed; an empty
// sender id goes back to the service's. The API checks the sender id and answers 422 with the field at fault.
import { useEffect, useState } from 'preact/hooks';
import {
  api,
  call,
  saveNotificationSettings,
  type NotificationSettings,
  type NotificationSettingsChange,
} from '../api';
import { ErrorBox, Loading, SubmitActions, useAction, useApp, useLoad } from '../ui';

interface Form {
  sms_enabled: boolean;
  language: NotificationSettings['language'];
  sender_id: string;
}

const formOf = (s: NotificationSettings): Form => ({
  sms_enabled: s.sms_enabled,
  language: s.language,
  sender_id: s.sender_id ?? '',
});

/** The fields of `form` that differ from `saved`, as the PUT body. */
function changes(saved: NotificationSettings, form: Form): NotificationSettingsChange {
  const body: NotificationSettingsChange = {};
  if (form.sms_enabled !== saved.sms_enabled) body.sms_enabled = form.sms_enabled;
  if (form.language !== saved.language) body.language = form.language;
  const sender = form.sender_id.trim() || null;
  if (sender !== saved.sender_id) body.sender_id = sender;
  return body;
}

function NotificationsForm(props: { saved: NotificationSettings; onSaved: (s: NotificationSettings) => void }) {
  const { saved, onSaved } = props;
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
      onSaved(Object.keys(body).length ? await saveNotificationSettings(body) : saved);
      setDone(true);
    });
  };
  return (
    <form class="stack" onSubmit={submit} aria-labelledby="h-sms">
      <fieldset class="stack" disabled={!allowed}>
        <legend class="visually-hidden">{t('sms_title')}</legend>
        <label class="inline">
          <input
            type="checkbox"
            name="sms_enabled"
            checked={form.sms_enabled}
            onChange={(e) => update({ ...form, sms_enabled: (e.target as HTMLInputElement).checked })}
          />
          {t('sms_enabled')}
        </label>
        <label>
          {t('sms_language')}
          <select
            name="sms_language"
            value={form.language}
            onChange={(e) => update({ ...form, language: e.currentTarget.value as Form['language'] })}
          >
            <option value="pt-AO">{t('sms_language_pt')}</option>
            <option value="en">{t('sms_language_en')}</option>
          </select>
        </label>
        <label>
          {t('sms_sender_id')}
          <input
            name="sender_id"
            maxLength={15}
            autoComplete="off"
            placeholder={saved.sender_id ? undefined : saved.effective_sender_id}
            value={form.sender_id}
            onInput={(e) => update({ ...form, sender_id: (e.target as HTMLInputElement).value })}
          />
          <span class="muted">{t('sms_sender_id_hint', { sender: saved.effective_sender_id })}</span>
        </label>
      </fieldset>
      {allowed ? <SubmitActions label={t('sms_save')} disabled={save.busy} /> : null}
      {save.error ? <ErrorBox error={save.error} t={t} /> : null}
      {done && !save.error ? (
        <p class="notice" role="status">
          {t('saved')}
        </p>
      ) : null}
    </form>
  );
}

/** The "SMS notifications" section of the settings page. */
export function NotificationSettingsSection() {
  const { t, mode } = useApp();
  const loaded = useLoad(
    async () => (await call(api.GET('/v1/settings/notifications'))) as NotificationSettings,
    [mode],
  );
  const [saved, setSaved] = useState<NotificationSettings | null>(null);
  useEffect(() => setSaved(null), [mode]);
  const current = saved ?? loaded.data;
  return (
    <section class="card stack" aria-labelledby="h-sms">
      <h2 id="h-sms">{t('sms_title')}</h2>
      <p class="muted">{t(mode === 'live' ? 'sms_hint_live' : 'sms_hint_test')}</p>
      {loaded.loading && !loaded.data ? <Loading label={t('loading')} /> : null}
      {loaded.error ? <ErrorBox error={loaded.error} t={t} onRetry={loaded.reload} /> : null}
      {current ? <NotificationsForm saved={current} onSaved={setSaved} /> : null}
    </section>
  );
}
