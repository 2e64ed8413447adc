// Webhook endpoints: the list, and a new endpoint whose signing secret is shown once (POST /v1/webhook_endpoints).
import { useState } from 'preact/hooks';
import { WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from '../../../../clients/typescript/src/index';
import { api, call } from '../api';
import { formatDateTime } from '../format';
import { eventLabel } from '../i18n';
import {
  ErrorBox,
  Link,
  ListTable,
  RoleNote,
  SecretBox,
  SubmitActions,
  useAction,
  useApp,
  useLoad,
  useTitle,
} from '../ui';

interface EndpointHealthFields {
  status: 'enabled' | 'disabled';
  health: 'healthy' | 'failing' | 'disabled';
  disabled_reason: string | null;
  failing_since: string | null;
}

/**
 * An endpoint's status badge: Ativo; A falhar when every attempt has failed for 24 h (`health: "failing"`); Desativado.
 * With `detail`: why it is disabled, or since when it fails.
 */
export function EndpointStatus({ endpoint: e, detail = false }: { endpoint: EndpointHealthFields; detail?: boolean }) {
  const { t, lang } = useApp();
  const [kind, label] =
    e.status !== 'enabled'
      ? ['off', t('disabled')]
      : e.health === 'failing'
        ? ['bad', t('health_failing')]
        : ['ok', t('enabled')];
  return (
    <>
      <span class={`badge ${kind}`} data-health={e.health}>
        {label}
      </span>
      {detail && e.status !== 'enabled' && e.disabled_reason ? (
        <span class="muted">
          {' '}
          · {e.disabled_reason === 'failing' ? t('disabled_failing') : t('disabled_by_merchant')}
        </span>
      ) : null}
      {detail && e.status === 'enabled' && e.failing_since ? (
        <span class="muted"> · {t('failing_since', { time: formatDateTime(lang, e.failing_since) })}</span>
      ) : null}
    </>
  );
}

function EndpointRow({ e }: { e: WebhookEndpoint }) {
  const { t, lang } = useApp();
  return (
    <tr data-endpoint={e.id}>
      <th scope="row" data-label={t('url')}>
        <Link to={`/webhooks/${e.id}`} class="mono wrap">
          {e.url}
        </Link>
        {e.description ? <span class="muted block">{e.description}</span> : null}
      </th>
      <td data-label={t('status')}>
        <EndpointStatus endpoint={e} />
      </td>
      <td data-label={t('events')}>
        {e.events ? e.events.map((type) => eventLabel(lang, type)).join(', ') : t('all_events')}
      </td>
      <td data-label={t('created')}>{formatDateTime(lang, e.created_at)}</td>
    </tr>
  );
}

/** All events, or the ones ticked. */
function EventsChoice(props: {
  some: boolean;
  setSome: (some: boolean) => void;
  events: string[];
  setEvents: (events: string[]) => void;
}) {
  const { t, lang } = useApp();
  const { some, setSome, events, setEvents } = props;
  return (
    <fieldset>
      <legend>{t('events')}</legend>
      <label class="inline">
        <input type="radio" name="which" checked={!some} onChange={() => setSome(false)} /> {t('all_events')}
      </label>
      <label class="inline">
        <input type="radio" name="which" checked={some} onChange={() => setSome(true)} /> {t('choose_events')}
      </label>
      {some ? (
        <div class="checks">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label key={type} class="inline">
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(e) =>
                  setEvents(
                    (e.target as HTMLInputElement).checked ? [...events, type] : events.filter((x) => x !== type),
                  )
                }
              />{' '}
              {eventLabel(lang, type)} <span class="muted mono">{type}</span>
            </label>
          ))}
        </div>
      ) : null}
    </fieldset>
  );
}

/** A new endpoint: URL, description and events; `onCreated` gets its id and signing secret (shown once). */
function AddEndpointForm({ onCreated }: { onCreated: (created: { id: string; secret: string }) => void }) {
  const { t } = useApp();
  const create = useAction();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [some, setSome] = useState(false);
  const [events, setEvents] = useState<string[]>([]);
  const submit = (event: Event) => {
    event.preventDefault();
    void create.run(async () => {
      const created = await call(
        api.POST('/v1/webhook_endpoints', {
          body: {
            url: url.trim(),
            ...(description.trim() ? { description: description.trim() } : {}),
            ...(some && events.length ? { events: events as (typeof WEBHOOK_EVENT_TYPES)[number][] } : {}),
          },
        }),
      );
      onCreated({ id: created.id, secret: created.secret ?? '' });
      setUrl('');
      setDescription('');
    });
  };
  return (
    <form onSubmit={submit} class="stack">
      <label>
        {t('url')}
        <input
          type="url"
          name="url"
          required
          placeholder="https://"
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        {t('description')}
        <input
          type="text"
          name="description"
          value={description}
          onInput={(e) => setDescription((e.target as HTMLInputElement).value)}
        />
      </label>
      <EventsChoice some={some} setSome={setSome} events={events} setEvents={setEvents} />
      {create.error ? <ErrorBox error={create.error} t={t} /> : null}
      <SubmitActions label={t('add_endpoint')} disabled={create.busy} />
    </form>
  );
}

export function WebhooksPage() {
  const { t, can } = useApp();
  useTitle(t('webhooks_title'));
  const list = useLoad(() => call(api.GET('/v1/webhook_endpoints', { params: { query: { limit: 100 } } })), []);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);

  return (
    <>
      <h1 tabIndex={-1}>{t('webhooks_title')}</h1>
      <ListTable
        loaded={list}
        t={t}
        empty={t('no_endpoints')}
        columns={[t('url'), t('status'), t('events'), t('created')]}
        row={(e) => <EndpointRow key={e.id} e={e} />}
      />

      {secret ? (
        <>
          <SecretBox label={t('signing_secret')} value={secret.secret} note={t('secret_once')} />
          <p>
            <Link to={`/webhooks/${secret.id}`}>{t('attempts_title')} →</Link>
          </p>
        </>
      ) : null}

      <section class="card" aria-labelledby="h-add">
        <h2 id="h-add">{t('add_endpoint')}</h2>
        {can('developer') ? (
          <AddEndpointForm
            onCreated={(created) => {
              setSecret(created);
              list.refresh();
            }}
          />
        ) : (
          <RoleNote text={t('not_allowed_role', { role: t('role_viewer') })} />
        )}
      </section>
    </>
  );
}
