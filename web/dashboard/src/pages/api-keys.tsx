// API keys of the mode the dashboard is in: create (the whole key shown once), revoke, and a publishable key's
// allowed origins. Live keys take an owner; test keys a developer (the API refuses the rest: 403 forbidden).
import { useState } from 'preact/hooks';
import { api, call, type ApiKey } from '../api';
import { formatDateTime } from '../format';
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
          await call(
            api.PATCH('/v1/api_keys/{id}', {
              params: { path: { id: apiKey.id } },
              body: { allowed_origins: lines(text) },
            }),
          );
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

/** A key: its prefix, kind, status, a publishable key's origins (editable), and revoke for those who may manage. */
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
      <th scope="row" data-label={t('key')} class="mono">
        {k.prefix}…
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

/** A new key of the dashboard's mode: secret, or publishable with its allowed origins; the whole key goes to `onCreated`. */
function CreateKeyForm({ onCreated }: { onCreated: (secret: string | null) => void }) {
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
      onCreated(key.secret ?? null);
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
  const [created, setCreated] = useState<string | null>(null);
  const mayManage = can(mode === 'live' ? 'owner' : 'developer');

  return (
    <>
      <h1 tabIndex={-1}>{t('keys_title')}</h1>
      {!mayManage ? <RoleNote text={t('live_keys_owner')} /> : null}
      {created ? <SecretBox label={t('key')} value={created} note={t('key_once')} /> : null}
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
          t('created'),
          mayManage && { label: t('revoke'), hidden: true },
        ]}
        row={(k) => <KeyRow key={k.id} k={k} mayManage={mayManage} revoke={revoke} refresh={list.refresh} />}
      />

      {mayManage ? (
        <CreateKeyForm
          onCreated={(secret) => {
            setCreated(secret);
            list.refresh();
          }}
        />
      ) : null}
    </>
  );
}
