// Effect `switchCompany`: the next booking is a new one (a new `Idempotency-Key`), with the message's company if any
// (failover's plan, an operator's `company_id`).
import { upsertSearchAttributes } from '@temporalio/workflow';
import type { Transition } from '../../../shared/deliveries/state-table.js';
import { CourierSlugKey } from '../../../shared/search-attributes.js';
import type { Delivery } from '../delivery.js';
import type { Message } from './message.js';

export function switchCompany(d: Delivery, t: Transition, msg: Message): void {
  if (msg.company) {
    if (t.trigger === 'failover') d.state.redispatchedFrom.push(d.state.companyId);
    d.state.companyId = msg.company.companyId;
  }
  d.state.nextBooking();
  if (msg.company) upsertSearchAttributes([{ key: CourierSlugKey, value: msg.company.slug }]);
}
