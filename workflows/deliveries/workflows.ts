// One workflow per delivery (`delivery-<uuid>`): it owns the delivery's state and is the only writer of status
// changes. It interprets the state table (shared/deliveries/state-table.ts, docs/deliveries.md "The state
// machine"): the handlers below queue or take the triggers, transitions.ts runs each transition's effects (effects/),
// and the main loop takes the inbox, books the courier and watches the deadlines until a final status.
import {
  CancellationScope,
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS,
  cancelUpdate,
  fleetEventSignal,
  operatorActionSignal,
  stateQuery,
  type CancelRequest,
  type DeliveryInboxItem,
  type DeliveryWorkflowInput,
} from '../../shared/deliveries/definitions.js';
import { CANCELLABLE_STATUSES } from '../../shared/deliveries/state-table.js';
import { isFinal, type Status } from '../../shared/deliveries/vocabulary.js';
import { Delivery } from './delivery.js';
import { announceReturn } from './effects/returns.js';
import { local } from './proxies.js';
import { book } from './handlers/book.js';
import { cancel, onCancelRequested } from './handlers/cancel.js';
import { nextDeadline, onDeadline } from './handlers/deadlines.js';
import { floodAtHead, ignoreQueuedFleetEvents, onFleetEvent } from './handlers/fleet.js';
import { onOperatorAction } from './handlers/operator.js';
import { setPaymentHandler, setTestHelperHandler } from './handlers/updates.js';
import { setRecoverHandler } from './handlers/recover.js';
import { setRecipientHandler } from './handlers/recipient.js';
import { accepted } from './handlers/accepted.js';

/** Continue-as-new waits while more messages than this are queued (the new run's input stays small). */
const MAX_CARRIED_INBOX = 100;

export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<{ status: Status }> {
  const d = new Delivery(input);
  setHandlers(d);
  // The first run announces the creation (recorded by the API); a continued run must not announce it again.
  if (!input.continued && input.webhooks) {
    const { deliveryId, tenantId, createdEventId: eventId, webhooks } = input;
    await local.announceEvent({ deliveryId, tenantId, eventId, webhooks });
  }
  // A return to sender tells the delivery it brings back (its first run only).
  if (!input.continued && input.returnOf) await announceReturn(d);
  // A cancellation of the workflow is queued as a message; the delivery's own steps are never interrupted by it.
  CancellationScope.current().cancelRequested.catch(() => void d.state.inbox.push({ kind: 'cancel_requested' }));
  return CancellationScope.nonCancellable(() => runToTheEnd(d));
}

function setHandlers(d: Delivery): void {
  const { state } = d;
  setHandler(stateQuery, () => state.view());
  // A courier retrying an event after a lost answer sends the same webhook-id: it counts once.
  setHandler(fleetEventSignal, (event) => {
    d.fleetSignalsThisRun++;
    if (event.webhookId && state.seenWebhookIds.has(event.webhookId)) return;
    if (event.webhookId) state.seenWebhookIds.add(event.webhookId);
    state.inbox.push({ kind: 'fleet', event });
  });
  setHandler(operatorActionSignal, (action) => void state.inbox.push({ kind: 'operator', action }));
  setHandler(
    cancelUpdate,
    async (request: CancelRequest) => {
      await accepted();
      return cancel(d, request);
    },
    {
      validator: (_request: CancelRequest) => {
        if (!CANCELLABLE_STATUSES.includes(state.status))
          throw new Error(`A delivery in status ${state.status} cannot be cancelled.`);
      },
    },
  );
  setPaymentHandler(d);
  setTestHelperHandler(d);
  setRecoverHandler(d);
  setRecipientHandler(d);
}

/** The next message of the inbox, taken under the lock (a cancellation request takes it itself). */
function take(d: Delivery, next: DeliveryInboxItem): Promise<void> {
  if (next.kind === 'cancel_requested') return onCancelRequested(d);
  return d.lock.runExclusive(() =>
    next.kind === 'fleet' ? onFleetEvent(d, next.event) : onOperatorAction(d, next.action),
  );
}

/** Whether this run's history is long enough to hand over to a new run: Temporal suggests it, or the input's limit. */
function historyIsLong(d: Delivery): boolean {
  const info = workflowInfo();
  const limit = d.input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS;
  return info.continueAsNewSuggested || info.historyLength >= limit;
}

/**
 * A long-lived delivery (a courier flooding it with events, say) continues as new before its history grows too long:
 * same workflow id, so the API and the worker keep finding it; the state travels in the input. Only between steps,
 * with every handler done and a small inbox.
 */
async function continueAsNewIfDue(d: Delivery): Promise<void> {
  await condition(allHandlersFinished);
  const { state } = d;
  if (isFinal(state.status) || d.lock.isLocked() || state.inbox.length > MAX_CARRIED_INBOX) return;
  const continueAsNew = makeContinueAsNewFunc<typeof deliveryWorkflow>({
    typedSearchAttributes: workflowInfo().typedSearchAttributes,
  });
  await continueAsNew({ ...d.input, continued: state.handOver() });
}

/** One step of the main loop: a continue-as-new, a booking, a deadline or the next message. */
async function step(d: Delivery): Promise<void> {
  const { state, alarm } = d;
  if (state.inbox.length <= MAX_CARRIED_INBOX && historyIsLong(d)) return continueAsNewIfDue(d);
  if (state.needsDispatch && state.status === 'pending') return book(d);
  const deadline = nextDeadline(d);
  const seen = state.status;
  const ready = () =>
    state.inbox.length > 0 || state.status !== seen || (state.needsDispatch && state.status === 'pending');
  if (deadline) alarm.set(Date.now() + Math.max(deadline.ms, 1));
  await condition(() => ready() || alarm.ringing);
  if (alarm.take()) {
    const due = nextDeadline(d);
    if (due && due.ms <= 0 && state.status === seen) await onDeadline(d, due, seen);
    return; // a deadline that moved later: armed again at the top
  }
  if (floodAtHead(d)) return d.lock.runExclusive(() => ignoreQueuedFleetEvents(d));
  const next = state.inbox.shift();
  if (next) await take(d, next);
}

async function runToTheEnd(d: Delivery): Promise<{ status: Status }> {
  const { state } = d;
  while (!isFinal(state.status)) await step(d);
  // Fleet events that arrived with the final transition are recorded as ignored.
  while (state.inbox.length > 0) {
    if (floodAtHead(d)) {
      await d.lock.runExclusive(() => ignoreQueuedFleetEvents(d));
      continue;
    }
    const next = state.inbox.shift()!;
    if (next.kind !== 'cancel_requested') await take(d, next); // a cancellation asked for after the end changes nothing
  }
  await condition(allHandlersFinished);
  return { status: state.status };
}
