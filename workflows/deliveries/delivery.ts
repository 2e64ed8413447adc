// One run of a delivery workflow: its input, its state (delivery-state.ts) and what orders the work on it.
import type { DeliveryWorkflowInput } from '../../shared/deliveries/definitions.js';
import { Alarm } from '../lib/alarm.js';
import { Mutex } from '../lib/mutex.js';
import { DeliveryState } from './delivery-state.js';
import { dispatchProxy } from './proxies.js';

export class Delivery {
  readonly state: DeliveryState;
  /** One status change at a time: updates, signals and the main loop all go through `lock.runExclusive`. */
  readonly lock = new Mutex();
  /** One timer for the state budgets and the SLA (workflows/lib/alarm.ts): a status change arms no new timer. */
  readonly alarm = new Alarm();
  readonly dispatchDelivery: ReturnType<typeof dispatchProxy>;

  constructor(readonly input: DeliveryWorkflowInput) {
    this.state = new DeliveryState(input);
    this.dispatchDelivery = dispatchProxy(input.timeouts);
  }
}
