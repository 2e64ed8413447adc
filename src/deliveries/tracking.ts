// The public tracking of a delivery, for the recipients' tracking page (src/pages/routes.ts): the delivery and its
// events, plus what only the page shows (the shop, its help contact, the quoted ETA). No tenant scope: the id is the
// secret, as for GET /v1/deliveries/{id}/tracking.
import type { Pool } from '../platform/db.js';
import { isUuid } from '../platform/uuid.js';
import { findDeliveryWithEvents, trackingPageExtras } from './repository.js';

/** The delivery, its events and the page's extras, or null when there is no such delivery. */
export async function trackingPageData(pool: Pool, id: string) {
  const found = isUuid(id) ? await findDeliveryWithEvents(pool, null, id) : null;
  const extras = found ? await trackingPageExtras(pool, found.delivery.id) : null;
  return found && extras ? { ...found, extras } : null;
}
