// The remittances couriers reported and the merchant has not settled yet (GET /v1/cod/remittances?status=reported):
// confirm (the cash arrived: POST .../confirm) or dispute with a reason (it did not, or not all of it: POST
// .../dispute, and the cash counts as outstanding again). The API's refusals (409 remittance_not_reported when it
// was settled meanwhile) are shown as it words them.
import { useRef, useState } from 'preact/hooks';
import { api, call, type CodRemittance } from '../api';
import { formatAoa, formatDateTime } from '../format';
import type { MessageKey } from '../i18n';
import { ConfirmButton, ErrorBox, ListTable, RoleNote, useAction, useApp, useLoad } from '../ui';

const METHOD: Record<CodRemittance['method'], MessageKey> = {
  bank_transfer: 'method_bank_transfer',
  cash: 'method_cash',
  multicaixa_express: 'method_multicaixa_express',
};

const refOf = (r: CodRemittance) => r.remittance_ref ?? r.id.slice(0, 8);

type Action = ReturnType<typeof useAction>;

/** Dispute, asking the reason in a modal dialog (required; Escape or "go back" closes it). */
function DisputeButton(props: { r: CodRemittance; action: Action; onDisputed: (reason: string) => Promise<void> }) {
  const { t } = useApp();
  const { r, action } = props;
  const dialog = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const title = t('cod_dispute_title', { ref: refOf(r), company: r.company_name });
  const submit = (event: Event) => {
    event.preventDefault();
    dialog.current?.close();
    void props.onDisputed(reason.trim());
  };
  return (
    <>
      <button
        type="button"
        class="danger small"
        disabled={action.busy}
        onClick={() => dialog.current?.showModal()}
        aria-label={title}
      >
        {t('cod_dispute')}
      </button>
      <dialog ref={dialog} aria-label={title}>
        <form onSubmit={submit} class="stack">
          <p>{title}</p>
          <label>
            {t('cod_dispute_reason')}
            <textarea
              name="reason"
              required
              maxLength={1000}
              rows={3}
              value={reason}
              onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)}
            />
          </label>
          <div class="actions">
            <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
              {t('keep')}
            </button>
            <button type="submit" class="danger">
              {t('cod_dispute_send')}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

function RemittanceRow(props: { r: CodRemittance; action: Action; onSettled: (message: string) => void }) {
  const { t, lang, can } = useApp();
  const { r, action, onSettled } = props;
  const path = { params: { path: { id: r.id } } };
  const confirm = () =>
    action.run(async () => {
      await call(api.POST('/v1/cod/remittances/{id}/confirm', path));
      onSettled(t('cod_confirmed_ok', { ref: refOf(r) }));
    });
  const dispute = async (reason: string) => {
    await action.run(async () => {
      await call(api.POST('/v1/cod/remittances/{id}/dispute', { ...path, body: { reason } }));
      onSettled(t('cod_disputed_ok', { ref: refOf(r) }));
    });
  };
  const total = formatAoa(r.total_aoa);
  return (
    <tr data-remittance={r.id}>
      <th scope="row" data-label={t('cod_remittance_ref')}>
        <span class="mono">{refOf(r)}</span>
        <span class="muted block">{r.company_name}</span>
      </th>
      <td data-label={t('cod_paid_at')}>{formatDateTime(lang, r.paid_at)}</td>
      <td data-label={t('cod_method')}>
        {t(METHOD[r.method])}
        {r.bank_reference ? <span class="muted block mono">{r.bank_reference}</span> : null}
      </td>
      <td data-label={t('cod_items')} class="num">
        {r.items.length}
      </td>
      <td data-label={t('cod_total')} class="num">
        {total}
      </td>
      <td data-label={t('cod_fee_deducted')} class="num">
        {formatAoa(r.fee_deducted_aoa)}
      </td>
      {can('developer') ? (
        <td data-label={t('cod_actions')}>
          <ConfirmButton
            class="primary small"
            label={t('cod_confirm')}
            question={t('cod_confirm_question', { total, company: r.company_name, ref: refOf(r) })}
            disabled={action.busy}
            onConfirm={() => void confirm()}
          />{' '}
          <DisputeButton r={r} action={action} onDisputed={dispute} />
        </td>
      ) : null}
    </tr>
  );
}

/** The reported remittances, confirm and dispute; `onSettled` refreshes what they change (the balances). */
export function WaitingRemittances({ onSettled }: { onSettled: () => void }) {
  const { t, can } = useApp();
  // The list answers JSON here (the CSV statement only with Accept: text/csv, ./cod.tsx).
  const list = useLoad(
    () =>
      call(api.GET('/v1/cod/remittances', { params: { query: { status: 'reported', limit: 100 } } })) as Promise<{
        data: CodRemittance[];
      }>,
    [],
  );
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const settled = (message: string) => {
    setNotice(message);
    list.refresh();
    onSettled();
  };
  return (
    <section class="card" aria-labelledby="h-waiting">
      <h2 id="h-waiting">{t('cod_waiting_title')}</h2>
      {notice && !action.error ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {action.error ? <ErrorBox error={action.error} t={t} /> : null}
      <ListTable
        loaded={list}
        t={t}
        empty={t('cod_no_waiting')}
        columns={[
          t('cod_remittance_ref'),
          t('cod_paid_at'),
          t('cod_method'),
          { label: t('cod_items'), num: true },
          { label: t('cod_total'), num: true },
          { label: t('cod_fee_deducted'), num: true },
          can('developer') && { label: t('cod_actions'), hidden: true },
        ]}
        row={(r) => <RemittanceRow key={r.id} r={r} action={action} onSettled={settled} />}
      />
      {!can('developer') ? <RoleNote text={t('not_allowed_role', { role: t('role_viewer') })} /> : null}
    </section>
  );
}
