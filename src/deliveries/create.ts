// Creating a delivery from a persisted quote, in one transaction: lock and consume the quote, insert the
// delivery and its `delivery.created` event. The workflow starts after commit (src/deliveries/start.ts).
import { randomInt, randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import { inTransaction, type Pool, type PoolClient } from '../db.js';
import { ApiError, type ErrorCode, type FieldErrorCode } from '../lib/problem.js';
import { isUuid } from '../lib/uuid.js';
import { IDEMPOTENCY_TTL } from '../idempotency/repository.js';
import { differingParts, payloadHash } from '../quotes/payload.js';
import type { Address, Parcel } from '../schemas.js';
import { initialStatusFor, type PaymentMethod, type Status } from '../../workflows/deliveries/states.js';
import { DELIVERY_COLUMNS, type DeliveryEventRow, type DeliveryRow } from './repository.js';
import { newClientSecret } from './client-secret.js';
import type { StartableDelivery } from './start.js';

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

const quoteError = (code: ErrorCode & FieldErrorCode, detail: string) => new ApiError(422, code, detail, [{ pointer: '/quote_id', code, detail }]);

/** The delivery as inserted and its `delivery.created` event (enough to answer without reading again),
 *  plus what starting its workflow needs. */
export interface CreatedDelivery extends StartableDelivery {
  row: DeliveryRow;
  events: DeliveryEventRow[];
  /** Widget deliveries: the client secret, only when this call created the delivery (never on a replay). */
  client_secret: string | null;
}

export async function createDelivery(
  pool: Pool,
  config: Config,
  tenantId: string,
  input: CreateDeliveryInput,
  source: string,
  idempotencyKey: string | null = null,
): Promise<CreatedDelivery> {
  if (!isUuid(input.quote_id)) throw quoteError('quote_not_found', 'No quote with this quote_id.');
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query(
      `SELECT q.id, q.company_id, q.fee_aoa, q.eta_minutes, q.valid_until < now() AS expired, q.payload_hash, q.used_at, c.slug, c.name,
              coalesce((c.capabilities->>'require_delivery_pin')::boolean, false) AS require_delivery_pin
         FROM quotes q JOIN courier_companies c ON c.id = q.company_id
        WHERE q.id = $1 AND q.tenant_id = $2 FOR UPDATE OF q`,
      [input.quote_id, tenantId],
    );
    const quote = rows[0];
    if (!quote) throw quoteError('quote_not_found', 'No quote with this quote_id.');
    if (quote.used_at) {
      // The same Idempotency-Key retried after its first attempt committed but never answered: that delivery.
      const replay = idempotencyKey ? await existingDelivery(client, tenantId, idempotencyKey, quote.id) : null;
      if (replay) return replay;
      throw quoteError('quote_already_used', 'This quote was already used to create a delivery. Request a new quote.');
    }
    // Expiry on the database clock, the one that stamped valid_until (src/quotes/repository.ts): an API host
    // whose clock drifts neither extends nor shortens a quote.
    if (quote.expired) throw quoteError('quote_expired', 'This quote has expired. Request a new quote and create the delivery with it.');
    if (input.company_id && input.company_id !== quote.company_id) {
      throw new ApiError(422, 'quote_company_mismatch', 'company_id differs from the company of the quote.', [
        { pointer: '/company_id', code: 'quote_company_mismatch', detail: 'company_id differs from the company of the quote.' },
      ]);
    }
    if (payloadHash(input) !== quote.payload_hash) throw await payloadMismatch(client, quote.id, input);

    const id = randomUUID();
    const reference = newReference();
    const initialStatus = initialStatusFor(input.payment_method);
    const start = input.scheduled_pickup_at ? Date.parse(input.scheduled_pickup_at) : Date.now();
    const slaDeadline = input.scheduled_delivery_at
      ? new Date(input.scheduled_delivery_at)
      : new Date(Math.max(start, Date.now()) + quote.eta_minutes * 60_000 + config.slaGraceMs);
    const pin = quote.require_delivery_pin ? String(randomInt(10_000)).padStart(4, '0') : null;
    // Only the widget's deliveries get one: the merchant reads its deliveries with its secret key.
    const clientSecret = source === 'widget' ? newClientSecret(id) : null;

    // The Idempotency-Key stays bound to its delivery for the key's 24 h window only: an older delivery gives it
    // up, so a key reused after that makes a new delivery. Within the window, another quote under it is refused below.
    if (idempotencyKey) {
      await client.query(
        `UPDATE deliveries SET idempotency_key = NULL WHERE tenant_id = $1 AND idempotency_key = $2 AND inserted_at < now() - ${IDEMPOTENCY_TTL}`,
        [tenantId, idempotencyKey],
      );
    }
    const inserted = await client
      .query(
        `INSERT INTO deliveries (id, tenant_id, reference, status, company_id, quote_id, origin, destination, parcel, payment_method,
         cash_collect_aoa, quoted_fee_aoa, delivery_pin, scheduled_pickup_at, scheduled_delivery_at, sla_deadline_at, metadata, idempotency_key,
         client_secret_hash)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19)
       RETURNING *`,
        [
          id,
          tenantId,
          reference,
          initialStatus,
          quote.company_id,
          quote.id,
          input.origin,
          input.destination,
          input.parcel,
          input.payment_method,
          input.cash_collect_aoa ?? null,
          quote.fee_aoa,
          pin,
          input.scheduled_pickup_at ?? null,
          input.scheduled_delivery_at ?? null,
          slaDeadline,
          input.options?.metadata ?? {},
          idempotencyKey,
          clientSecret?.hash ?? null,
        ],
      )
      .catch(refuseReusedKey);
    await client.query('UPDATE quotes SET used_at = now(), delivery_id = $2 WHERE id = $1', [quote.id, id]);
    const createdEventId = randomUUID();
    const event = await client.query<DeliveryEventRow>(
      `INSERT INTO delivery_events (id, delivery_id, tenant_id, event_type, source, payload) VALUES ($1, $2, $3, 'delivery.created', $4, $5)
       RETURNING id, event_type, occurred_at, source, payload`,
      [createdEventId, id, tenantId, source, { status: initialStatus, payment_method: input.payment_method }],
    );
    return {
      row: { ...inserted.rows[0], courier_name: quote.name, courier_slug: quote.slug, require_delivery_pin: quote.require_delivery_pin } as DeliveryRow,
      events: event.rows,
      client_secret: clientSecret?.secret ?? null,
      id,
      reference,
      tenant_id: tenantId,
      company_id: quote.company_id,
      courier_slug: quote.slug,
      require_delivery_pin: quote.require_delivery_pin,
      sla_deadline_at: slaDeadline,
      created_event_id: createdEventId,
      initial_status: initialStatus,
    };
  });
}

/** 422 quote_payload_mismatch naming the parts that differ from the quoted ones: one field error per part. */
async function payloadMismatch(client: PoolClient, quoteId: string, input: CreateDeliveryInput): Promise<ApiError> {
  const { rows } = await client.query('SELECT origin, destination, parcel FROM quotes WHERE id = $1', [quoteId]);
  const parts = differingParts(rows[0], input);
  // The hash differs, so some part does; should the stored form ever compare equal, name all three.
  const named = parts.length > 0 ? parts : (['origin', 'destination', 'parcel'] as const);
  return new ApiError(
    422,
    'quote_payload_mismatch',
    `${named.join(', ')} ${named.length === 1 ? 'differs' : 'differ'} from the quoted ones. Send them exactly as quoted, or request a new quote.`,
    named.map((part) => ({ pointer: `/${part}`, code: 'quote_payload_mismatch', detail: `${part} differs from the quoted ${part}.` })),
  );
}

/** The insert met the unique index on (tenant, Idempotency-Key): the key made another delivery within its window. */
function refuseReusedKey(err: unknown): never {
  if ((err as { constraint?: string }).constraint === 'deliveries_tenant_idempotency_key_idx') {
    throw new ApiError(
      422,
      'idempotency_key_reused',
      'This Idempotency-Key was used for another delivery within the last 24 hours. Use a new key for a new request.',
    );
  }
  throw err;
}

async function existingDelivery(client: PoolClient, tenantId: string, idempotencyKey: string, quoteId: string): Promise<CreatedDelivery | null> {
  const { rows } = await client.query<DeliveryRow & { created_event_id: string; initial_status: Status }>(
    `SELECT ${DELIVERY_COLUMNS}, e.id AS created_event_id, e.payload->>'status' AS initial_status
       FROM deliveries d JOIN courier_companies c ON c.id = d.company_id
       JOIN delivery_events e ON e.delivery_id = d.id AND e.event_type = 'delivery.created'
      WHERE d.tenant_id = $1 AND d.idempotency_key = $2 AND d.quote_id = $3 AND d.inserted_at >= now() - ${IDEMPOTENCY_TTL}`,
    [tenantId, idempotencyKey, quoteId],
  );
  const row = rows[0];
  if (!row) return null;
  const events = await client.query<DeliveryEventRow>('SELECT id, event_type, occurred_at, source, payload FROM delivery_events WHERE id = $1', [
    row.created_event_id,
  ]);
  return {
    row,
    events: events.rows,
    // The first attempt's secret is not kept (only its hash): a replay does not show one.
    client_secret: null,
    id: row.id,
    reference: row.reference,
    tenant_id: row.tenant_id,
    company_id: row.company_id,
    courier_slug: row.courier_slug,
    require_delivery_pin: row.require_delivery_pin,
    sla_deadline_at: row.sla_deadline_at,
    created_event_id: row.created_event_id,
    initial_status: row.initial_status,
  };
}
