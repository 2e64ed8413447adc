// A delivery's messages to its recipient (GET /v1/deliveries/{delivery_id}/notifications, docs/recipients.md "The
// message log"), oldest first: what each announced, to whom (the phone masked by the API), where it stands and why, in
// words (never the raw status or reason code), its length in SMS parts, and the text as sent.
import type { Notification } from '../api';
import { formatDateTime } from '../format';
import type { MessageKey } from '../i18n';
import { ErrorBox, Loading, useApp, type Loaded } from '../ui';

const KIND: Record<Notification['kind'], MessageKey> = {
  created: 'sms_kind_created',
  out_for_delivery: 'sms_kind_out_for_delivery',
  attempt_failed: 'sms_kind_attempt_failed',
  delivered: 'sms_kind_delivered',
};
const STATUS: Record<Notification['status'], MessageKey> = {
  queued: 'sms_status_queued',
  submitted: 'sms_status_submitted',
  delivered: 'sms_status_delivered',
  failed: 'sms_status_failed',
  not_sent: 'sms_status_not_sent',
};
const BADGE: Record<Notification['status'], string> = {
  queued: '',
  submitted: '',
  delivered: 'ok',
  failed: 'bad',
  not_sent: 'bad',
};
/** The reasons the outbox records (docs/recipients.md "The outbox"), by their code. */
const REASON: Record<string, MessageKey> = {
  opted_out: 'sms_reason_opted_out',
  disabled: 'sms_reason_disabled',
  no_provider: 'sms_reason_no_provider',
  // Delivery receipts' states (`undeliverable:<SMSC error>`).
  undeliverable: 'sms_reason_undeliverable',
  deleted: 'sms_reason_undeliverable',
  expired: 'sms_reason_expired',
  rejected: 'sms_reason_rejected',
  unknown: 'sms_reason_unconfirmed',
  // SMPP refusals.
  ESME_RINVDSTADR: 'sms_reason_invalid_number',
};

/**
 * A reason in words: a known code (before any `:detail`), a retryable failure that ran out of tries (`<code> (after 8
 * tries)`), any other SMPP refusal (`ESME_...`) as a refusal by the operator; null for one the dashboard does not know.
 */
function reasonKey(reason: string): MessageKey | null {
  if (/\(after \d+ tries\)$/.test(reason)) return 'sms_reason_retries_exhausted';
  const code = reason.split(':')[0].trim();
  if (Object.hasOwn(REASON, code)) return REASON[code];
  return code.startsWith('ESME_') ? 'sms_reason_rejected' : null;
}

/** Only a message that ended without reaching the phone says why (a queued one may keep its last try's error). */
const ENDED = new Set<Notification['status']>(['failed', 'not_sent']);

/** Whether a message may still change (sent, waiting for its receipt, or waiting to be sent). */
export const messagesPending = (rows: Notification[] | undefined) =>
  !!rows?.some((n) => n.status === 'queued' || n.status === 'submitted');

export function MessageLog({ messages }: { messages: Loaded<{ data: Notification[] }> }) {
  const { t, lang } = useApp();
  const rows = messages.data?.data;
  return (
    <section class="card" aria-labelledby="h-messages" data-messages>
      <h2 id="h-messages">{t('sms_log_title')}</h2>
      {messages.loading && !messages.data ? <Loading label={t('loading')} /> : null}
      {messages.error ? <ErrorBox error={messages.error} t={t} onRetry={messages.reload} /> : null}
      {rows && rows.length === 0 ? <p class="muted">{t('sms_log_empty')}</p> : null}
      {rows && rows.length > 0 ? (
        <ol class="messages">
          {rows.map((n) => (
            <li key={n.id} data-kind={n.kind} data-status={n.status}>
              <p class="message-head">
                <span class="when">{formatDateTime(lang, n.created_at)}</span> <strong>{t(KIND[n.kind])}</strong>{' '}
                <span class={`badge ${BADGE[n.status]}`}>{t(STATUS[n.status])}</span>
              </p>
              {n.reason && ENDED.has(n.status) ? (
                <p class="message-reason">{t('sms_reason', { reason: t(reasonKey(n.reason) ?? 'reason_unknown') })}</p>
              ) : null}
              <p class="muted">
                {t('sms_to', { to: n.to })} ·{' '}
                {t(n.encoding === 'gsm7' ? 'sms_parts_gsm7' : 'sms_parts_ucs2', { segments: n.segments })}
                {n.delivered_at ? ` · ${t('sms_delivered_at', { at: formatDateTime(lang, n.delivered_at) })}` : ''}
              </p>
              <blockquote class="message-body wrap" lang={n.language}>
                {n.body}
              </blockquote>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
