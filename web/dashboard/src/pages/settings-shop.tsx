// The shop profile (GET/PUT /v1/settings/shop, docs/dashboard.md "Settings"): the shop's name as customers know it and
// its help contact (phone, e-mail, a page), shown on the recipients' tracking page and in their SMS. It is the
// account's, one for live and test mode, so only an owner changes it (in either mode); everyone else reads it. Saving
// sends only the fields changed; an emptied field clears the setting. The API checks the contacts (422 at the field).
import { useEffect, useState } from 'preact/hooks';
import { api, call, saveShopProfile, type ShopProfile, type ShopProfileChange } from '../api';
import { ErrorBox, Loading, RoleNote, SubmitActions, useAction, useApp, useLoad } from '../ui';

const FIELDS = ['display_name', 'help_phone', 'help_email', 'help_url'] as const;
type Field = (typeof FIELDS)[number];
type Form = Record<Field, string>;

const formOf = (s: ShopProfile): Form => ({
  display_name: s.display_name ?? '',
  help_phone: s.help_phone ?? '',
  help_email: s.help_email ?? '',
  help_url: s.help_url ?? '',
});

/** The fields of `form` that differ from `saved`, as the PUT body (an emptied field is null: it clears the setting). */
function shopChanges(saved: ShopProfile, form: Form): ShopProfileChange {
  const body: ShopProfileChange = {};
  for (const field of FIELDS) {
    const value = form[field].trim() || null;
    if (value !== (saved[field] ?? null)) body[field] = value;
  }
  return body;
}

/** Plain text inputs (the API checks the contacts and names the one at fault), with the keyboard each one wants. */
const INPUTS: Record<Field, { autoComplete: string; maxLength: number; inputMode: 'text' | 'tel' | 'email' | 'url' }> =
  {
    display_name: { autoComplete: 'organization', maxLength: 100, inputMode: 'text' },
    help_phone: { autoComplete: 'tel', maxLength: 30, inputMode: 'tel' },
    help_email: { autoComplete: 'email', maxLength: 254, inputMode: 'email' },
    help_url: { autoComplete: 'url', maxLength: 500, inputMode: 'url' },
  };

function ShopForm({ saved, onSaved }: { saved: ShopProfile; onSaved: (s: ShopProfile) => void }) {
  const { t, can } = useApp();
  const allowed = can('owner');
  const [form, setForm] = useState(() => formOf(saved));
  const [done, setDone] = useState(false);
  const save = useAction();
  useEffect(() => setForm(formOf(saved)), [saved]);
  const submit = (e: Event) => {
    e.preventDefault();
    void save.run(async () => {
      const body = shopChanges(saved, form);
      onSaved(Object.keys(body).length ? await saveShopProfile(body) : saved);
      setDone(true);
    });
  };
  return (
    <form class="stack" onSubmit={submit} aria-labelledby="h-shop">
      <fieldset class="stack" disabled={!allowed}>
        <legend class="visually-hidden">{t('shop_title')}</legend>
        {FIELDS.map((field) => (
          <label key={field}>
            {t(`shop_${field}`)}
            <input
              name={field}
              type="text"
              {...INPUTS[field]}
              placeholder={field === 'display_name' ? saved.name : undefined}
              value={form[field]}
              onInput={(e) => {
                setDone(false);
                setForm({ ...form, [field]: (e.target as HTMLInputElement).value });
              }}
            />
            {field === 'display_name' ? (
              <span class="muted">{t('shop_display_name_hint', { name: saved.name })}</span>
            ) : null}
          </label>
        ))}
      </fieldset>
      {allowed ? <SubmitActions label={t('shop_save')} disabled={save.busy} /> : null}
      {save.error ? <ErrorBox error={save.error} t={t} /> : null}
      {done && !save.error ? (
        <p class="notice" role="status">
          {t('saved')}
        </p>
      ) : null}
    </form>
  );
}

/** The "Shop" section of the settings page. */
export function ShopSection() {
  const { t, can } = useApp();
  const loaded = useLoad(async () => (await call(api.GET('/v1/settings/shop'))) as ShopProfile, []);
  const [saved, setSaved] = useState<ShopProfile | null>(null);
  const current = saved ?? loaded.data;
  return (
    <section class="card stack" aria-labelledby="h-shop" data-section="shop">
      <h2 id="h-shop">{t('shop_title')}</h2>
      <p class="muted">{t('shop_hint')}</p>
      {!can('owner') ? <RoleNote text={t('shop_owner')} /> : null}
      {loaded.loading && !loaded.data ? <Loading label={t('loading')} /> : null}
      {loaded.error ? <ErrorBox error={loaded.error} t={t} onRetry={loaded.reload} /> : null}
      {current ? <ShopForm saved={current} onSaved={setSaved} /> : null}
    </section>
  );
}
