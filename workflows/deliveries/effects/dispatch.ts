// Effect `dispatch`: back in `pending` with no courier job, the main loop books one next.
import type { Delivery } from '../delivery.js';

export function dispatch(d: Delivery): void {
  if (d.state.status === 'pending' && !d.state.trackingRef) d.state.needsDispatch = true;
}
