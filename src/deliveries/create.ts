// Creating a delivery from a persisted quote, in one transaction: lock and consume the quote, insert the
// delivery and its `delivery.created` event. The workflow starts after commit (src/deliveries/start.ts).
import { randomInt, randomUUID } from 'node:crypto';
import type { Config } from '../platform/config.js';
import { inTransaction, type Pool, type PoolClient } from '../platform/db.js';
import { canonicalJson, sha256Hex } from '../platform/canonical.js';
import { ApiError, type ErrorCode, type FieldErrorCode } from '../http/problem.js';
import type { Scope } from '../platform/scope.js';
import { isUuid } from '../platform/uuid.js';
import { differingParts, payloadHash } from '../quotes/payload.js';
import { clampDate } from '../http/schemas.js';
import { type Address, type Parcel } from '../couriers/schemas.js';
import { initialStatusFor, type PaymentMethod } from '../../shared/deliveries/vocabulary.js';
import { type DeliveryEventRow, type DeliveryRow } from './repository.js';
import {
  deliveryByIdempotencyKey,
  insertDelivery,
  lockQuoteForDelivery,
  quotedPayload,
  type QuoteForDelivery,
  type StartableDelivery,
  type StartContext,
} from './start-repository.js';
import { newClientSecret } from './client-secret.js';
import { enqueueNotification, smsDefaults } from '../notifications/enqueue.js';

export interface CreateDeliveryInput {
  quote_id: string;
  origin: Address;
  destination: Address;
  parcel: Parcel;
  company_id?: string;
  payment_method: PaymentMethod;
  cash_collect_aoa?: number | null;
  scheduled_pickup_at?: string | null;
  scheduled_delivery_at?: string | null;
  options?: { metadata?: Record<string, unknown> };
}

// Crockford base32 without I, L, O, U: easy to read out over the phone.
const REFERENCE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const newReference = () => 'DLV-' + Array.from({ length: 10 }, () => REFERENCE_ALPHABET[randomInt(32)]).join('');

const quoteError = (code: ErrorCode & FieldErrorCode, detail: string) =>
  new ApiError(422, code, detail, [{ pointer: '/quote_id', code, detail }]);

/** The delivery as inserted and its `delivery.created` event (enough to answer without reading again),
 *  plus what starting its workflow needs. */
export interface CreatedDelivery extends StartableDelivery {
  row: DeliveryRow;
  events: DeliveryEventRow[];
  /** Widget deliveries: the client secret, only when this call created the delivery (never on a replay). */
  client_secret: string | null;
  /** The delivery an earlier request with the same Idempotency-Key and body made, answered again (nothing created). */
  replayed: boolean;
  /** What starting its workflow reads, read by the creation's insert (absent on a replay: the start reads it). */
  start_context?: StartContext;
}

/** Creates the delivery in the scope's mode, from a quote of the same scope (a test quote takes a test key). */
export async function createDelivery(
  pool: Pool,
  config: Config,
  scope: Scope,
  input: CreateDeliveryInput,
  source: string,
  idempotencyKey: string | null = null,
): Promise<CreatedDelivery> {
  // A delivery keeps the Idempotency-Key it was made under, at any age: the same request again gets that delivery, another
  // request under the key is refused, whether or not the key's idempotency record (24 h) is still there.
  const requestHash = idempotencyKey ? sha256Hex(canonicalJson(input)) : null;
  const underKey = async (client: PoolClient) =>
    idempotencyKey && requestHash ? existingDelivery(client, scope, idempotencyKey, input, requestHash) : null;
  return inTransaction(pool, async (client) => {
    const before = await underKey(client);
    if (before) return before;
    if (!isUuid(input.quote_id)) throw quoteError('quote_not_found', 'No quote with this quote_id.');
    const quote = await lockQuoteForDelivery(client, scope, input.quote_id);
    if (!quote) throw quoteError('quote_not_found', 'No quote with this quote_id.');
    if (quote.used_at) {
      // The same request committed by a concurrent attempt while this one waited for the quote's lock: that delivery.
      const replay = await underKey(client);
      if (replay) return replay;
      throw quoteError('quote_already_used', 'This quote was already used to create a delivery. Request a new quote.');
    }
    // Expiry on the database clock, the one that stamped valid_until (src/quotes/repository.ts): an API host
    // whose clock drifts neither extends nor shortens a quote.
    if (quote.expired)
      throw quoteError('quote_expired', 'This quote has expired. Request a new quote and create the delivery with it.');
    if (input.company_id && input.company_id !== quote.company_id) {
      throw new ApiError(422, 'quote_company_mismatch', 'company_id differs from the company of the quote.', [
        {
          pointer: '/company_id',
          code: 'quote_company_mismatch',
          detail: 'company_id differs from the company of the quote.',
        },
      ]);
    }
    if (payloadHash(input) !== quote.payload_hash) throw await payloadMismatch(client, quote.id, input);

    return insertFromQuote(client, config, scope, input, source, quote, { key: idempotencyKey, requestHash });
  });
}

/** The delivery's row and its first event, from a quote that checked out; the answer createDelivery gives. */
async function insertFromQuote(
  client: PoolClient,
  config: Config,
  scope: Scope,
  input: CreateDeliveryInput,
  source: string,
  quote: QuoteForDelivery,
  idempotency: { key: string | null; requestHash: string | null },
): Promise<CreatedDelivery> {
  const id = randomUUID();
  const reference = newReference();
  const initialStatus = initialStatusFor(input.payment_method);
  const start = input.scheduled_pickup_at ? Date.parse(input.scheduled_pickup_at) : Date.now();
  // Capped at 9999-12-31T23:59:59.999Z: a pickup scheduled at the end of the range cannot push it past what a read serialises.
  const slaDeadline = clampDate(
    input.scheduled_delivery_at
      ? Date.parse(input.scheduled_delivery_at)
      : Math.max(start, Date.now()) + quote.eta_minutes * 60_000 + config.slaGraceMs,
  );
  const pin = quote.require_delivery_pin ? String(randomInt(10_000)).padStart(4, '0') : null;
  // Only the widget's deliveries get one: the merchant reads its deliveries with its secret key.
  const clientSecret = source === 'widget' ? newClientSecret(id) : null;

  // The Idempotency-Key stays bound to its delivery for good; a concurrent request under it is refused (refuseReusedKey).
  const createdEventId = randomUUID();
  const inserted = await insertDelivery(
    client,
    {
      id,
      tenant_id: scope.tenantId,
      reference,
      status: initialStatus,
      livemode: scope.livemode,
      company_id: quote.company_id,
      quote_id: quote.id,
      origin: input.origin,
      destination: input.destination,
      parcel: input.parcel,
      payment_method: input.payment_method,
      cash_collect_aoa: input.cash_collect_aoa ?? null,
      quoted_fee_aoa: quote.fee_aoa,
      delivery_pin: pin,
      scheduled_pickup_at: input.scheduled_pickup_at ?? null,
      scheduled_delivery_at: input.scheduled_delivery_at ?? null,
      sla_deadline_at: slaDeadline,
      metadata: input.options?.metadata ?? {},
      idempotency_key: idempotency.key,
      idempotency_request_hash: idempotency.requestHash,
      client_secret_hash: clientSecret?.hash ?? null,
    },
    { eventId: createdEventId, source, payload: { status: initialStatus, payment_method: input.payment_method } },
  ).catch(refuseReusedKey);
  // The recipient's first SMS (with the recipient link), in the same transaction (docs/recipients.md "The outbox"); a
  // destination without a phone has none (no need to read the SMS settings).
  if (input.destination.contact?.phone) {
    await enqueueNotification(
      client,
      { eventId: createdEventId, eventType: 'delivery.created', deliveryId: id },
      smsDefaults(config),
    );
  }
  return {
    row: {
      ...inserted.row,
      courier_name: quote.name,
      courier_slug: quote.slug,
      require_delivery_pin: quote.require_delivery_pin,
    },
    events: [inserted.event],
    client_secret: clientSecret?.secret ?? null,
    replayed: false,
    start_context: inserted.start,
    id,
    reference,
    tenant_id: scope.tenantId,
    livemode: scope.livemode,
    company_id: quote.company_id,
    courier_slug: quote.slug,
    require_delivery_pin: quote.require_delivery_pin,
    sla_deadline_at: slaDeadline,
    created_event_id: createdEventId,
    initial_status: initialStatus,
    payment_method: input.payment_method,
  };
}

/** 422 quote_payload_mismatch naming the parts that differ from the quoted ones: one field error per part. */
async function payloadMismatch(client: PoolClient, quoteId: string, input: CreateDeliveryInput): Promise<ApiError> {
  const parts = differingParts(await quotedPayload(client, quoteId), input);
  // The hash differs, so some part does; should the stored form ever compare equal, name all three.
  const named = parts.length > 0 ? parts : (['origin', 'destination', 'parcel'] as const);
  return new ApiError(
    422,
    'quote_payload_mismatch',
    `${named.join(', ')} ${named.length === 1 ? 'differs' : 'differ'} from the quoted ones. Send them exactly as quoted, or request a new quote.`,
    named.map((part) => ({
      pointer: `/${part}`,
      code: 'quote_payload_mismatch',
      detail: `${part} differs from the quoted ${part}.`,
    })),
  );
}

const keyReused = () =>
  new ApiError(
    422,
    'idempotency_key_reused',
    'This Idempotency-Key was already used for another delivery request. Use a new key for a new request.',
  );

/** The insert met the unique index on (tenant, mode, Idempotency-Key): a concurrent request made a delivery under the key. */
function refuseReusedKey(err: unknown): never {
  if ((err as { constraint?: string }).constraint === 'deliveries_tenant_idempotency_key_idx') throw keyReused();
  throw err;
}

/**
 * The delivery made under this Idempotency-Key when this is the same request (same body hash; for deliveries made before
 * the hash was stored, the same quote), 422 idempotency_key_reused when it is another, null when the key made none.
 */
async function existingDelivery(
  client: PoolClient,
  scope: Scope,
  idempotencyKey: string,
  input: CreateDeliveryInput,
  requestHash: string,
): Promise<CreatedDelivery | null> {
  const found = await deliveryByIdempotencyKey(client, scope, idempotencyKey);
  if (!found) return null;
  const same = found.requestHash === null ? found.quoteId === input.quote_id : found.requestHash === requestHash;
  if (!same) throw keyReused();
  const { row, event } = found;
  return {
    row,
    events: [event],
    // The first attempt's secret is not kept (only its hash): a replay does not show one.
    client_secret: null,
    replayed: true,
    id: row.id,
    reference: row.reference,
    tenant_id: row.tenant_id,
    livemode: row.livemode,
    company_id: row.company_id,
    courier_slug: row.courier_slug,
    require_delivery_pin: row.require_delivery_pin,
    sla_deadline_at: row.sla_deadline_at,
    created_event_id: row.created_event_id,
    initial_status: row.initial_status,
    payment_method: row.payment_method,
  };
}
