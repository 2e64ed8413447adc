// Effect `resetPinAttempts`: the operator gives the driver new PIN attempts.
import type { Delivery } from '../delivery.js';

export function resetPinAttempts(d: Delivery): void {
  d.state.pinAttempts = 0;
}
