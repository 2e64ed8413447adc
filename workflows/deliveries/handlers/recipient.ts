// The recipientUpdate update (the tracking page's forms, docs/recipients.md): the recipient's answers become
// `delivery.recipient_updated` (source `recipient`) and the courier is told (the `recipient.update` row of the state
// table). Refused in a final status, by the validator (nothing in the history) and again under the lock.
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import { RecipientUpdateRejected, recipientUpdate } from '../../../shared/deliveries/definitions.js';
import { allows } from '../../../shared/deliveries/state-table.js';
import type { RecipientUpdate } from '../../../shared/deliveries/vocabulary.js';
import type { Delivery } from '../delivery.js';
import { apply } from '../transitions.js';
import { accepted } from './accepted.js';

export function setRecipientHandler(d: Delivery): void {
  const refusal = () =>
    allows('recipient.update', d.state.status) ? null : `The delivery is ${d.state.status}: it takes no more answers.`;
  setHandler(
    recipientUpdate,
    async (update: RecipientUpdate) => {
      await accepted();
      return d.lock.runExclusive(async () => {
        const refused = refusal();
        if (refused)
          throw ApplicationFailure.nonRetryable(refused, RecipientUpdateRejected, { status: d.state.status });
        await apply(d, 'recipient.update', { payload: { ...update } });
        return { status: d.state.status };
      });
    },
    {
      validator: (_update: RecipientUpdate) => {
        const refused = refusal();
        if (refused) throw new Error(refused);
      },
    },
  );
}
