// Cash on delivery in the simulator (docs/cash-on-delivery.md "Simulator"): a cash-on-delivery job's `delivered`
// carries payload.cash_collected_aoa (the expected cash, less the company's `cod_short_payment_aoa`), and the company
// remits on demand: a signed POST {api}/v1/fleet/{slug}/remittances of its delivered, not yet remitted cash jobs.
import { randomUUID } from 'node:crypto';
import type { BookingRecord, CompanyState, RemitInput, RemitResult } from './types.js';

/** The cash a job's `delivered` reports (and remembers), or nothing when the job is not cash on delivery. */
export function cashPayload(state: CompanyState, booking: BookingRecord): { cash_collected_aoa?: number } {
  if (booking.request.payment_method !== 'cod') return {};
  const expected = Number(booking.request.cash_collect_aoa ?? 0);
  const collected = Math.max(0, expected - (state.config.cod_short_payment_aoa ?? 0));
  booking.cash_collected_aoa = collected;
  return { cash_collected_aoa: collected };
}

/** The API's remittance route, next to the booking's fleet events callback. */
const remittanceUrl = (booking: BookingRecord) => booking.callback_url.replace(/\/events$/, '/remittances');

/** Per company, the body each remittance_ref was first sent with: a remittance_ref sent again resends it as it was. */
const sentBodies = new WeakMap<CompanyState, Map<string, string>>();

/**
 * Reports the company's delivered, not yet remitted cash jobs (or the ones named) as one remittance, signed with the
 * company's fleet secret. A job is marked remitted when the API answers 200 or 201. A remittance_ref this company sent
 * before is sent again with the very same body (a courier retrying after a lost answer), whatever else `input` says.
 */
export async function remit(
  state: CompanyState,
  input: RemitInput,
  sign: (secret: string, body: string) => Record<string, string>,
): Promise<RemitResult> {
  const sent = sentBodies.get(state) ?? new Map<string, string>();
  sentBodies.set(state, sent);
  const before = input.remittance_ref ? sent.get(input.remittance_ref) : undefined;
  const refs = before
    ? (JSON.parse(before) as { items: { tracking_ref: string }[] }).items.map((i) => i.tracking_ref)
    : input.tracking_refs;
  const all = [...state.bookings.values()];
  const jobs = refs
    ? all.filter((b) => refs.includes(b.tracking_ref))
    : all.filter((b) => b.cash_collected_aoa !== undefined && !b.remittance_ref);
  const remittanceRef = input.remittance_ref ?? `sim_rem_${randomUUID().slice(0, 12)}`;
  if (jobs.length === 0) return { remittance_ref: remittanceRef, tracking_refs: [], status: null, body: null };
  const body = before ?? remittanceBody(remittanceRef, jobs, input);
  sent.set(remittanceRef, body);
  const res = await fetch(remittanceUrl(jobs[0]), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...sign(state.config.fleet_secret, body) },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status === 200 || res.status === 201) for (const b of jobs) b.remittance_ref = remittanceRef;
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return {
    remittance_ref: remittanceRef,
    tracking_refs: jobs.map((b) => b.tracking_ref),
    status: res.status,
    body: parsed,
  };
}

function remittanceBody(remittanceRef: string, jobs: BookingRecord[], input: RemitInput): string {
  const fee = input.fee_deducted_aoa ?? 0;
  const items = jobs.map((b) => {
    const collected = b.cash_collected_aoa ?? Number(b.request.cash_collect_aoa ?? 0);
    const kept = Math.min(fee, collected);
    return { tracking_ref: b.tracking_ref, amount_aoa: collected - kept, ...(kept ? { fee_deducted_aoa: kept } : {}) };
  });
  return JSON.stringify({
    remittance_ref: remittanceRef,
    paid_at: new Date().toISOString(),
    method: input.method ?? 'bank_transfer',
    items,
  });
}
