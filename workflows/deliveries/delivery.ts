// One run of a delivery workflow: its input, its state (delivery-state.ts) and what orders the work on it.
import type { DeliveryWorkflowInput } from '../../shared/deliveries/definitions.js';
import { Alarm } from '../lib/alarm.js';
import { Mutex } from '../lib/mutex.js';
import { DeliveryState } from './delivery-state.js';
import { dispatchProxy } from './proxies.js';

/** Fleet events a run records with local activities; past them (a flood), regular activities (see `flooded`). */
const LOCAL_RECORDS_MAX = 50;

export class Delivery {
  readonly state: DeliveryState;
  /** One status change at a time: updates, signals and the main loop all go through `lock.runExclusive`. */
  readonly lock = new Mutex();
  /** One timer for the state budgets and the SLA (workflows/lib/alarm.ts): a status change arms no new timer. */
  readonly alarm = new Alarm();
  /** The booking as a regular activity: every attempt, or (`afterFirstAttempt`) those after one made here. */
  readonly dispatchDelivery: ReturnType<typeof dispatchProxy>;
  readonly dispatchAfterFirstAttempt: ReturnType<typeof dispatchProxy>;
  /**
   * Whether the next booking makes its first attempt in the workflow task (handlers/book.ts): only the one a delivery
   * created `pending` starts with. A later one (after a payment confirmation, a resume, a redispatch) is a regular
   * activity from the start, so the update or signal that asked for it is answered without waiting for the courier.
   */
  firstAttemptHere: boolean;
  fleetSignalsThisRun = 0;

  constructor(readonly input: DeliveryWorkflowInput) {
    this.state = new DeliveryState(input);
    this.dispatchDelivery = dispatchProxy(input.timeouts);
    this.dispatchAfterFirstAttempt = dispatchProxy(input.timeouts, true);
    this.firstAttemptHere = !input.continued && input.initialStatus === 'pending';
  }

  /**
   * A run flooded with fleet events (more than LOCAL_RECORDS_MAX signals) records with regular activities from then
   * on: its workflow tasks then never wait on a local activity, the window in which a task the server fails (too many
   * signals buffered, a timeout) meets Temporal Core's mishandling of the next one (docs/architecture.md "Signals
   * buffered during a workflow task"). A normal lifecycle has a handful of fleet events and never gets here.
   */
  get flooded(): boolean {
    return this.fleetSignalsThisRun > LOCAL_RECORDS_MAX;
  }
}
