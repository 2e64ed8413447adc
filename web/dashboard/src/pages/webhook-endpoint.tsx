// One webhook endpoint: rotate its secret (the new one shown once), disable or enable it, delete it, and its attempt
// log (status codes and response times, live) with replay of one message or of a time range.
import { useState } from 'preact/hooks';
import type { WebhookAttempt, WebhookEndpoint } from '../../../../clients/typescript/src/index';
import { api, call } from '../api';
import { formatDateTime, luandaLocal } from '../format';
import { eventLabel } from '../i18n';
import { navigate } from '../router';
import { EndpointStatus } from './webhooks';
import {
  ActionButton,
  ConfirmButton,
  ErrorBox,
  FieldInput,
  Link,
  ListTable,
  Loading,
  SecretBox,
  SubmitActions,
  useAction,
  useApp,
  useInterval,
  useLoad,
  useTitle,
  type AppState,
  type Loaded,
} from '../ui';

const PAGE_SIZE = 25;
const LIVE_MS = 3000;

type Action = ReturnType<typeof useAction>;
type Replay = (body: { message_id: string } | { since: string; until?: string }) => unknown;

function EndpointFacts({ e }: { e: WebhookEndpoint }) {
  const { t, lang } = useApp();
  return (
    <dl class="facts">
      <div>
        <dt>{t('status')}</dt>
        <dd>
          <EndpointStatus endpoint={e} detail />
        </dd>
      </div>
      <div>
        <dt>{t('events')}</dt>
        <dd>{e.events ? e.events.map((type) => eventLabel(lang, type)).join(', ') : t('all_events')}</dd>
      </div>
      <div>
        <dt>{t('created')}</dt>
        <dd>{formatDateTime(lang, e.created_at)}</dd>
      </div>
      {e.description ? (
        <div>
          <dt>{t('description')}</dt>
          <dd>{e.description}</dd>
        </div>
      ) : null}
    </dl>
  );
}

/** Rotate the secret (the new one goes to `setSecret`), disable or enable, delete. */
function EndpointActions(props: {
  id: string;
  endpoint: Loaded<WebhookEndpoint>;
  action: Action;
  setSecret: (secret: string | null) => void;
}) {
  const { t } = useApp();
  const { endpoint, action } = props;
  const e = endpoint.data!;
  const path = { params: { path: { id: props.id } } };
  return (
    <div class="actions">
      <ConfirmButton
        label={t('rotate_secret')}
        question={t('rotate_confirm')}
        onConfirm={() =>
          action.run(async () => {
            const rotated = await call(api.POST('/v1/webhook_endpoints/{id}/rotate_secret', path));
            props.setSecret(rotated.secret ?? null);
            endpoint.refresh();
          })
        }
      />
      <ActionButton
        class="secondary"
        action={action}
        change={async () => {
          await call(
            api.PATCH('/v1/webhook_endpoints/{id}', {
              ...path,
              body: { status: e.status === 'enabled' ? 'disabled' : 'enabled' },
            }),
          );
          endpoint.refresh();
        }}
      >
        {e.status === 'enabled' ? t('disable') : t('enable')}
      </ActionButton>
      <ConfirmButton
        danger
        label={t('delete')}
        question={t('delete_endpoint_confirm')}
        onConfirm={() =>
          action.run(async () => {
            await call(api.DELETE('/v1/webhook_endpoints/{id}', path));
            navigate('/webhooks');
          })
        }
      />
    </div>
  );
}

/** Why an attempt failed, in words (the stored text, a network library's, stays in the title for a developer). */
function attemptError(error: string, t: AppState['t']): string {
  const http = /^HTTP (\d{3})$/.exec(error);
  if (http) return t('attempt_error_http', { status: http[1] });
  if (/^timeout|timed? ?out/i.test(error)) return t('attempt_error_timeout');
  if (/ECONNREFUSED|ECONNRESET|EPIPE/.test(error)) return t('attempt_error_refused');
  if (/ENOTFOUND|EAI_AGAIN/.test(error)) return t('attempt_error_dns');
  if (/^no attempt left/.test(error)) return t('attempt_error_exhausted');
  return t('attempt_error_other');
}

function AttemptRow(props: { a: WebhookAttempt; mayChange: boolean; replayable: boolean; replay: Replay }) {
  const { t, lang } = useApp();
  const { a } = props;
  return (
    <tr data-attempt={a.id} data-message={a.message_id} data-trigger={a.trigger}>
      <td data-label={t('attempted_at')}>{formatDateTime(lang, a.attempted_at)}</td>
      <td data-label={t('event')}>
        {eventLabel(lang, a.event_type)}
        <span class="muted mono block">{a.message_id}</span>
      </td>
      <td data-label={t('result')}>
        <span class={`badge ${a.status === 'succeeded' ? 'ok' : 'bad'}`}>{t(`attempt_${a.status}`)}</span>
        {a.error ? (
          <span class="muted block" title={a.error}>
            {attemptError(a.error, t)}
          </span>
        ) : null}
      </td>
      <td data-label={t('http_status')} class="num">
        {a.status_code ?? t('none')}
      </td>
      <td data-label={t('latency')} class="num">
        {a.latency_ms === null ? t('none') : t('latency_ms', { ms: a.latency_ms })}
      </td>
      <td data-label={t('trigger')}>{t(`trigger_${a.trigger}`)}</td>
      {props.mayChange ? (
        <td>
          <button
            type="button"
            class="secondary small"
            disabled={!props.replayable}
            aria-label={t('replay_message', { id: a.message_id })}
            onClick={() => props.replay({ message_id: a.message_id })}
          >
            {t('replay')}
          </button>
        </td>
      ) : null}
    </tr>
  );
}

function AttemptsPager(props: { offset: number; hasMore: boolean; setOffset: (offset: number) => void }) {
  const { t } = useApp();
  const { offset } = props;
  return (
    <nav class="pager" aria-label={t('pagination')}>
      <button
        type="button"
        class="secondary"
        disabled={offset === 0}
        onClick={() => props.setOffset(Math.max(0, offset - PAGE_SIZE))}
      >
        {t('previous')}
      </button>
      <button
        type="button"
        class="secondary"
        disabled={!props.hasMore}
        onClick={() => props.setOffset(offset + PAGE_SIZE)}
      >
        {t('next')}
      </button>
    </nav>
  );
}

/** Replays what was sent between two times (Luanda's), up to now without the second. */
function ReplayRangeForm({ replay, disabled }: { replay: Replay; disabled: boolean }) {
  const { t } = useApp();
  const [range, setRange] = useState({ since: '', until: '' });
  return (
    <form
      class="card stack"
      aria-labelledby="h-range"
      onSubmit={(ev) => {
        ev.preventDefault();
        void replay({
          since: luandaLocal(range.since),
          ...(range.until ? { until: luandaLocal(range.until) } : {}),
        });
      }}
    >
      <h2 id="h-range">{t('replay_range_title')}</h2>
      <div class="row">
        <FieldInput
          label={t('replay_since')}
          type="datetime-local"
          name="since"
          required
          value={range}
          field="since"
          onChange={setRange}
        />
        <FieldInput
          label={t('replay_until')}
          type="datetime-local"
          name="until"
          value={range}
          field="until"
          onChange={setRange}
        />
      </div>
      <SubmitActions label={t('replay_range')} class="secondary" disabled={disabled} />
    </form>
  );
}

/** The endpoint and a page of its attempts, asked again every LIVE_MS once the endpoint has loaded. */
function useEndpoint(id: string) {
  const endpoint = useLoad(() => call(api.GET('/v1/webhook_endpoints/{id}', { params: { path: { id } } })), [id]);
  const [offset, setOffset] = useState(0);
  const attempts = useLoad(
    () =>
      call(
        api.GET('/v1/webhook_endpoints/{id}/attempts', {
          params: { path: { id }, query: { limit: PAGE_SIZE, offset } },
        }),
      ),
    [id, offset],
  );
  useInterval(attempts.refresh, LIVE_MS, !!endpoint.data && !attempts.error);
  return { endpoint, attempts, offset, setOffset };
}

export function WebhookEndpointPage({ id }: { id: string }) {
  const { t, can } = useApp();
  const { endpoint, attempts, offset, setOffset } = useEndpoint(id);
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const e = endpoint.data;
  useTitle(e ? t('endpoint_title', { url: e.url }) : t('webhooks_title'));

  if (endpoint.loading && !e) return <Loading label={t('loading')} />;
  if (!e) {
    return (
      <>
        <h1 tabIndex={-1}>{t('webhooks_title')}</h1>
        <ErrorBox error={endpoint.error} t={t} onRetry={endpoint.reload} />
      </>
    );
  }

  const replay: Replay = (body) =>
    action.run(async () => {
      setNotice(null);
      const answer = await call(api.POST('/v1/webhook_endpoints/{id}/replay', { params: { path: { id } }, body }));
      setNotice(t('replayed', { count: answer.replayed }));
      attempts.refresh();
    });

  const mayChange = can('developer');
  const replayable = !action.busy && e.status === 'enabled';
  return (
    <>
      <p class="crumb">
        <Link to="/webhooks">← {t('back_to_webhooks')}</Link>
      </p>
      <h1 tabIndex={-1} class="wrap">
        {t('endpoint_title', { url: e.url })}
      </h1>
      <div class="card">
        <EndpointFacts e={e} />
        {mayChange ? <EndpointActions id={id} endpoint={endpoint} action={action} setSecret={setSecret} /> : null}
      </div>
      {secret ? <SecretBox label={t('signing_secret')} value={secret} note={t('secret_once')} /> : null}
      {action.error ? <ErrorBox error={action.error} t={t} /> : null}
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}

      <section aria-labelledby="h-attempts">
        <h2 id="h-attempts">{t('attempts_title')}</h2>
        <ListTable
          loaded={attempts}
          t={t}
          empty={t('no_attempts')}
          class="list attempts"
          columns={[
            t('attempted_at'),
            t('event'),
            t('result'),
            { label: t('http_status'), num: true },
            { label: t('latency'), num: true },
            t('trigger'),
            mayChange && { label: t('replay'), hidden: true },
          ]}
          row={(a) => <AttemptRow key={a.id} a={a} mayChange={mayChange} replayable={replayable} replay={replay} />}
        />
        {attempts.data && (offset > 0 || attempts.data.pagination.has_more) ? (
          <AttemptsPager offset={offset} hasMore={attempts.data.pagination.has_more} setOffset={setOffset} />
        ) : null}
      </section>

      {mayChange ? <ReplayRangeForm replay={replay} disabled={!replayable} /> : null}
    </>
  );
}
