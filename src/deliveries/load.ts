// The caller's delivery for the delivery routes and the test helpers: found in the key's scope (its tenant and mode),
// else 404 not_found, as for another tenant's delivery or a malformed id.
import type { Pool } from '../platform/db.js';
import { findDelivery, findDeliveryWithEvents, type DeliveryRow } from './repository.js';
import { notFound } from '../http/problem.js';
import type { Scope } from '../platform/scope.js';

export async function loadDelivery(pool: Pool, scope: Scope, id: string): Promise<DeliveryRow> {
  const delivery = await findDelivery(pool, scope, id);
  if (!delivery) throw notFound();
  return delivery;
}

/** The delivery and its events as of one moment (a status change never falls between them). */
export async function loadDeliveryWithEvents(pool: Pool, scope: Scope, id: string) {
  const found = await findDeliveryWithEvents(pool, scope, id);
  if (!found) throw notFound();
  return found;
}
