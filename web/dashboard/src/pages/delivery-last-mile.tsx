// A delivery's last mile on its page (design.md "Attempts, returns and proof of delivery", "Merchants recover their
// own stalled deliveries"): the recovery panel of a stalled delivery (exactly the actions `recovery.actions` names,
// the stall reason in words, each action confirmed), "Return to sender" on a failed delivery with no return, the links
// between a delivery and its return, the proof of delivery, and the words of an event's attempt and reason.
import { useState } from 'preact/hooks';
import {
  api,
  call,
  recoverDelivery,
  returnDelivery,
  type Delivery,
  type LastMile,
  type ProofOfDelivery,
  type RecoverBody,
  type RecoveryAction,
} from '../api';
import { reasonLabel, reasonText } from '../i18n';
import { navigate } from '../router';
import { ConfirmButton, ErrorBox, Link, useAction, useApp, useLoad, type AppState } from '../ui';

export type FullDelivery = Delivery & LastMile;

/** The order the panel shows the actions in, whatever order the API lists them. */
const ACTION_ORDER: RecoveryAction[] = ['redispatch', 'resume', 'mark_failed', 'cancel'];

type Courier = { id: string; name: string };

/** The companies to offer for a redispatch: the tenant's couriers (GET /v1/couriers) but the one it stalled with. */
function useOtherCouriers(d: FullDelivery, wanted: boolean) {
  return useLoad<Courier[]>(
    async () =>
      wanted ? (await call(api.GET('/v1/couriers'))).data.filter((c: Courier) => c.id !== d.company_id) : [],
    [d.id, d.company_id, wanted],
  );
}

function CompanyChoice(props: { couriers: Courier[]; value: string; onChange: (id: string) => void }) {
  const { t } = useApp();
  return (
    <label class="company-choice">
      {t('recovery_company')}
      <select name="company_id" value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{t('recovery_company_auto')}</option>
        {props.couriers.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The question and the request body of each recovery action. */
function recoveryStep(a: RecoveryAction, d: FullDelivery, t: AppState['t'], company?: Courier) {
  const reference = d.reference;
  switch (a) {
    case 'redispatch':
      return {
        question: t('recover_redispatch_confirm', {
          reference,
          company: company?.name ?? t('recovery_company_auto').toLowerCase(),
        }),
        body: (company ? { action: a, company_id: company.id } : { action: a }) as RecoverBody,
      };
    case 'resume':
      return { question: t('recover_resume_confirm', { reference }), body: { action: a } as RecoverBody };
    case 'mark_failed':
      return { question: t('recover_mark_failed_confirm', { reference }), body: { action: a } as RecoverBody };
    case 'cancel':
      return { question: t('recover_cancel_confirm', { reference }), body: { action: a } as RecoverBody };
  }
}

/** The panel of a stalled delivery: why it stopped, in words, and a confirmed button per action the API accepts now. */
export function RecoveryPanel({ d, onDone }: { d: FullDelivery; onDone: () => void }) {
  const { t, lang, can } = useApp();
  const action = useAction();
  const [companyId, setCompanyId] = useState('');
  const offered = ACTION_ORDER.filter((a) => d.recovery?.actions.includes(a));
  const couriers = useOtherCouriers(d, can('developer') && offered.includes('redispatch'));
  if (!d.recovery) return null;
  const company = couriers.data?.find((c) => c.id === companyId);
  const button = (a: RecoveryAction) => {
    const step = recoveryStep(a, d, t, company);
    return (
      <ConfirmButton
        key={a}
        label={t(`recover_${a}`)}
        question={step.question}
        danger={a === 'mark_failed' || a === 'cancel'}
        class={a === 'mark_failed' || a === 'cancel' ? 'danger' : 'primary'}
        disabled={action.busy}
        onConfirm={() =>
          action.run(async () => {
            await recoverDelivery(d.id, step.body);
            onDone();
          })
        }
      />
    );
  };
  return (
    <section class="card recovery" aria-labelledby="h-recovery" data-recovery={d.recovery.reason ?? undefined}>
      <h2 id="h-recovery">{t('recovery_title')}</h2>
      <p>{t('recovery_why', { reason: reasonLabel(lang, d.recovery.reason ?? 'unknown') })}</p>
      {can('developer') && offered.length ? (
        <>
          <p class="muted">{t('recovery_hint')}</p>
          {offered.includes('redispatch') ? (
            <CompanyChoice couriers={couriers.data ?? []} value={companyId} onChange={setCompanyId} />
          ) : null}
          <div class="actions recovery-actions">{offered.map(button)}</div>
        </>
      ) : null}
      {action.error ? <ErrorBox error={action.error} t={t} /> : null}
    </section>
  );
}

/** The links between a delivery and its return, and "Return to sender" on a failed delivery with none. */
export function ReturnCard({ d }: { d: FullDelivery }) {
  const { t, can } = useApp();
  const action = useAction();
  const canStart = d.status === 'failed' && !d.return_delivery_id && !d.return_of && can('developer');
  if (!d.return_of && !d.return_delivery_id && !canStart) return null;
  const start = () =>
    action.run(async () => {
      const created = await returnDelivery(d.id);
      navigate(`/deliveries/${created.id}`);
    });
  return (
    <section class="card" aria-labelledby="h-return">
      <h2 id="h-return">{t('return_title')}</h2>
      {d.return_of ? (
        <p>
          {t('return_is_of')} <Link to={`/deliveries/${d.return_of}`}>{t('open_original')}</Link>
        </p>
      ) : null}
      {d.return_delivery_id ? (
        <p>
          {t('return_exists')} <Link to={`/deliveries/${d.return_delivery_id}`}>{t('open_return')}</Link>
        </p>
      ) : null}
      {canStart ? (
        <>
          <p class="muted">{t('return_hint')}</p>
          <div class="actions">
            <ConfirmButton
              class="primary"
              label={t('return_to_sender')}
              question={t('return_confirm', { reference: d.reference })}
              disabled={action.busy}
              onConfirm={start}
            />
          </div>
        </>
      ) : null}
      {action.error ? <ErrorBox error={action.error} t={t} /> : null}
    </section>
  );
}

/** An https address as a link that opens apart (never fetched by the dashboard); anything else as plain text. */
function OutLink({ href, label }: { href: string; label: string }) {
  if (!/^https:\/\//i.test(href)) return <code class="wrap">{href}</code>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {label}
    </a>
  );
}

const mapUrl = ({ lat, lng }: { lat: number; lng: number }) =>
  `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=18/${lat}/${lng}`;

/** What the courier gave as proof: who received it, the photo and signature as links, where (a map link). */
export function ProofCard({ proof }: { proof: ProofOfDelivery | null | undefined }) {
  const { t } = useApp();
  if (!proof) return null;
  const rows: [string, preact.ComponentChildren][] = [];
  if (proof.recipient_name) rows.push([t('proof_recipient'), proof.recipient_name]);
  if (proof.photo_url) rows.push([t('proof_photo'), <OutLink href={proof.photo_url} label={t('open_photo')} />]);
  if (proof.signature_url)
    rows.push([t('proof_signature'), <OutLink href={proof.signature_url} label={t('open_signature')} />]);
  if (proof.location) {
    const where = `${proof.location.lat.toFixed(5)}, ${proof.location.lng.toFixed(5)}`;
    rows.push([
      t('proof_location'),
      <>
        <span class="mono">{where}</span> ·{' '}
        <a href={mapUrl(proof.location)} target="_blank" rel="noopener noreferrer">
          {t('open_map')}
        </a>
      </>,
    ]);
  }
  if (!rows.length) return null;
  return (
    <section class="card" aria-labelledby="h-proof" data-proof>
      <h2 id="h-proof">{t('proof_title')}</h2>
      <dl class="facts">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** An event's detail in words: "attempt 2 · the recipient was not there", a stall's or failure's reason. */
export function EventDetail({ payload }: { payload: unknown }) {
  const { t, lang } = useApp();
  const p = (payload ?? {}) as { attempt?: unknown; reason?: unknown; ignored?: unknown };
  const parts: string[] = [];
  if (p.ignored === true) parts.push(t('event_ignored'));
  if (typeof p.attempt === 'number') parts.push(t('attempt_n', { attempt: p.attempt }));
  if (typeof p.reason === 'string' && p.reason) parts.push(reasonText(lang, p.reason));
  return parts.length ? <span class="muted"> · {parts.join(' · ')}</span> : null;
}
