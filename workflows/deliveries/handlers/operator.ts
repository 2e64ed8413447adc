// An operator's action on a stalled delivery (admin CLI, dashboard): the table's `operator.*` transitions; on a
// delivery that is not stalled, recorded as an ignored `delivery.operator_action`.
import type { OperatorAction } from '../../../shared/deliveries/definitions.js';
import { allows, type Trigger } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import { recordEvent } from '../effects/record.js';
import { regular } from '../proxies.js';
import { apply } from '../transitions.js';

/** Takes one operator action. Call under the lock. */
export async function onOperatorAction(d: Delivery, action: OperatorAction): Promise<void> {
  const payload = { action: action.action, note: action.note ?? null };
  const trigger = `operator.${action.action}` as Trigger;
  const ignore = (reason: string) =>
    recordEvent(d, null, 'delivery.operator_action', { ...payload, ignored: true, reason }, 'operator');
  if (!allows(trigger, d.state.status)) return ignore(`not_stalled_${d.state.status}`);
  switch (action.action) {
    case 'redispatch': {
      let company: { companyId: string; slug: string } | null = null;
      if (action.company_id && action.company_id !== d.state.companyId) {
        company = await regular.findRedispatchCompany({ tenantId: d.input.tenantId, companyId: action.company_id });
        if (!company) return ignore('unknown_company');
      }
      // The same company keeps its job booked; another one gets the next booking and the old job is released.
      const companyId = company?.companyId ?? d.state.companyId;
      return apply(d, trigger, {
        payload: { ...payload, company_id: companyId },
        company: company ?? undefined,
        keepBooking: !company,
        extra: { companyId, trackingRef: null },
      });
    }
    case 'resume':
      return apply(d, trigger, { payload: { ...payload, status: d.state.previousStatus } });
    case 'mark_failed':
    case 'cancel':
      return apply(d, trigger, { payload: { ...payload, reason: 'operator' } });
  }
}
