// Request and response schemas of the delivery routes (merchant and widget surfaces, public tracking).
import { z } from 'zod';
import {
  EXAMPLE_CREATE_DELIVERY,
  EXAMPLE_CREATED_EVENT,
  EXAMPLE_DELIVERY,
  EXAMPLE_DELIVERY_SUMMARY,
  EXAMPLE_STALLED_DELIVERY,
  EXAMPLE_TRACKING,
  EXAMPLE_WIDGET_DELIVERY,
} from '../http/examples.js';
import { DateTimeInput, PaginationQuery, Timestamp, Uri } from '../http/schemas.js';
import { Address, Parcel } from '../couriers/schemas.js';
import { EVENT_TYPES, OPERATOR_ACTIONS, PAYMENT_METHODS, STATUSES } from '../../shared/deliveries/vocabulary.js';
import { ProofOfDelivery } from './proof.js';

const dateTime = DateTimeInput;
const Metadata = z
  .record(z.string().max(40), z.unknown())
  .refine((m) => Object.keys(m).length <= 50 && JSON.stringify(m).length <= 8192, {
    message: 'metadata holds at most 50 keys and 8 KB of JSON',
    params: { code: 'too_large' },
  })
  .describe('Free-form; echoed on responses and webhooks. At most 50 keys (names up to 40 characters) and 8 KB.');

const CreateDeliveryFields = z.strictObject({
  quote_id: z.string().max(64).meta({ format: 'uuid' }).describe('uuid of a quote from POST /v1/quotes'),
  origin: Address,
  destination: Address,
  parcel: Parcel,
  company_id: z.uuid().optional().describe("when present, must be the quote's company"),
  payment_method: z.enum(PAYMENT_METHODS).default('prepaid'),
  cash_collect_aoa: z
    .number()
    .int()
    .nonnegative()
    .max(1e14)
    .nullable()
    .optional()
    .describe(
      'AOA centavos the courier collects; required with payment_method cod, refused with any other method (null is fine)',
    ),
  scheduled_pickup_at: dateTime.nullable().optional(),
  scheduled_delivery_at: dateTime.nullable().optional(),
  options: z.strictObject({ metadata: Metadata.optional() }).optional(),
});
type CreateDeliveryFields = z.infer<typeof CreateDeliveryFields>;

/** Checks of every surface: cash only with cod, and a delivery time after the pickup time. */
function checkCreate(body: CreateDeliveryFields, ctx: z.RefinementCtx) {
  if (body.payment_method !== 'cod' && body.cash_collect_aoa !== undefined && body.cash_collect_aoa !== null) {
    ctx.addIssue({
      code: 'custom',
      params: { code: 'not_allowed' },
      path: ['cash_collect_aoa'],
      message: 'cash_collect_aoa is only accepted with payment_method cod',
    });
  }
  if (
    body.scheduled_pickup_at &&
    body.scheduled_delivery_at &&
    Date.parse(body.scheduled_delivery_at) < Date.parse(body.scheduled_pickup_at)
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['scheduled_delivery_at'],
      message: 'scheduled_delivery_at is before scheduled_pickup_at',
    });
  }
}

export const CreateDeliveryBody = CreateDeliveryFields.superRefine((body, ctx) => {
  if (body.payment_method === 'cod' && (body.cash_collect_aoa === undefined || body.cash_collect_aoa === null)) {
    ctx.addIssue({
      code: 'custom',
      params: { code: 'required' },
      path: ['cash_collect_aoa'],
      message: 'cash_collect_aoa is required when payment_method is cod',
    });
  }
  checkCreate(body, ctx);
}).meta({ examples: [EXAMPLE_CREATE_DELIVERY] });

/** The widget's body: the same fields; which payment methods it may use and the cod amount come from its key's
 *  policy (src/keys/widget-policy.ts), checked by the route. */
export const WidgetCreateDeliveryBody = CreateDeliveryFields.superRefine(checkCreate).meta({
  examples: [EXAMPLE_CREATE_DELIVERY],
});

export const Courier = z.object({ name: z.string().nullable(), tracking_ref: z.string().nullable() }).nullable();

/** Every event_type the service records, and sends as webhook `type`. */
const EventType = z.enum(EVENT_TYPES);

export const DeliveryEvent = z
  .object({
    id: z.uuid().optional(),
    event_type: EventType.describe('dotted name, equal to the webhook event type'),
    occurred_at: Timestamp,
    ignored: z
      .literal(true)
      .optional()
      .describe(
        'present (true) only on an event that changed nothing: a fleet event not allowed from the current status, a wrong PIN, ' +
          'an operator action on a delivery that is not stalled; payload.reason says why. Such events send no webhook and ' +
          'are left out of the widget and public tracking event lists',
      ),
    source: z.string().nullable().optional(),
    payload: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .meta({ id: 'DeliveryEvent', examples: [EXAMPLE_CREATED_EVENT] });

const Status = z.enum(STATUSES);

/** The fields the merchant's and the widget's delivery views start with; `livemode` as that view describes it. */
const deliveryHead = (livemode: string) => ({
  id: z.uuid(),
  reference: z.string(),
  status: Status,
  livemode: z.boolean().describe(livemode),
  inserted_at: Timestamp,
});

export const DeliverySummary = z
  .object({
    ...deliveryHead('false: a test delivery (made with a test key; simulated courier, test webhooks only)'),
    origin: Address.optional(),
    destination: Address.optional(),
    parcel: Parcel.optional(),
    quoted_fee_aoa: z.number().int().nullable().optional(),
    courier: Courier.optional(),
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("the merchant's metadata (lists and the full view)"),
  })
  .meta({ id: 'DeliverySummary', examples: [EXAMPLE_DELIVERY_SUMMARY] });

export const Delivery = DeliverySummary.extend({
  origin: Address,
  destination: Address,
  parcel: Parcel,
  company_id: z.uuid().optional(),
  payment_method: z.enum(PAYMENT_METHODS).optional(),
  cash_collect_aoa: z.number().int().nullable().optional(),
  scheduled_pickup_at: Timestamp.nullable().optional(),
  scheduled_delivery_at: Timestamp.nullable().optional(),
  sla_deadline_at: Timestamp.nullable().optional(),
  tracking_url: Uri.optional().describe('public tracking page for the recipient'),
  delivery_pin: z
    .string()
    .nullable()
    .optional()
    .describe('4 digits when the courier requires a PIN at delivery: give it to the recipient, never to the courier'),
  metadata: z.record(z.string(), z.unknown()).optional(),
  return_of: z
    .uuid()
    .nullable()
    .optional()
    .describe('on a return to sender: the id of the delivery it brings back (null otherwise)'),
  return_delivery_id: z
    .uuid()
    .nullable()
    .optional()
    .describe('the return to sender of this delivery, once one started (null otherwise)'),
  updated_at: Timestamp.optional(),
  events: z.array(DeliveryEvent).optional(),
  proof_of_delivery: ProofOfDelivery.nullable()
    .optional()
    .describe(
      "the courier's proof with its `delivered` event (photo and signature as https links, never fetched by the service); " +
        'null when none. Never on the widget or tracking views',
    ),
  recipient_answers: z
    .object({
      instructions: z.string().nullable().describe('how to reach the door, up to 280 characters'),
      destination_coordinates: z
        .object({ lat: z.number(), lng: z.number() })
        .nullable()
        .describe("where the recipient is (the browser's location or typed); the destination's own coordinates stay"),
      preferred_window: z
        .object({
          date: z.string().describe('YYYY-MM-DD, Luanda'),
          from: z.string().describe('HH:MM, Luanda'),
          to: z.string().describe('HH:MM, Luanda'),
        })
        .nullable()
        .describe('the window chosen for the next attempt, after a failed one'),
      updated_at: Timestamp.describe('the latest answer'),
    })
    .nullable()
    .optional()
    .describe(
      "the recipient's latest answers on the tracking page (docs/recipients.md), each field from the latest " +
        '`delivery.recipient_updated` carrying it; the courier was told of each. Null until the recipient answers. ' +
        'Never on the widget or tracking views',
    ),
  recovery: z
    .object({
      reason: z.string().nullable().describe('why it stalled: the `delivery.stalled` payload.reason'),
      previous_status: Status.nullable().describe('the status it stalled from'),
      actions: z
        .array(z.enum(OPERATOR_ACTIONS))
        .describe(
          'the actions POST /v1/deliveries/{id}/recover accepts now; `cancel` only when it stalled before pickup',
        ),
    })
    .nullable()
    .optional()
    .describe('while the delivery is stalled: what POST /v1/deliveries/{id}/recover accepts; null otherwise'),
  cod: z
    .object({
      expected_aoa: z.number().int().describe('cash_collect_aoa: what the courier is to collect'),
      collected_aoa: z.number().int().nullable().describe('what the courier collected; null before delivery'),
      remitted_aoa: z.number().int().describe('handed over to the merchant (reported or confirmed)'),
      fee_deducted_aoa: z.number().int().describe('the fee the courier kept out of the cash'),
      status: z.enum(['awaiting_collection', 'collected', 'remitted', 'confirmed']),
      remittance_id: z.uuid().nullable().describe('the remittance that covers it (null: outstanding)'),
    })
    .nullable()
    .optional()
    .meta({
      id: 'DeliveryCod',
      description: 'Cash on delivery (docs/cash-on-delivery.md); null for other payment methods.',
    }),
}).meta({ id: 'Delivery', examples: [EXAMPLE_DELIVERY, EXAMPLE_STALLED_DELIVERY] });

/** An address in the widget's read: with the publishable key alone only `city` and `province`. */
const WidgetAddress = Address.extend({
  address_line: Address.shape.address_line.optional().describe('only with the client_secret'),
  coordinates: Address.shape.coordinates.describe('only with the client_secret'),
  contact: Address.shape.contact.describe('only with the client_secret'),
}).meta({ id: 'WidgetAddress', examples: [{ city: 'Luanda', province: 'Luanda' }] });

export const WidgetDelivery = z
  .object({
    ...deliveryHead('false: a test delivery'),
    origin: WidgetAddress,
    destination: WidgetAddress,
    parcel: Parcel.describe(
      'without the client_secret only its weight, dimensions and parcel_type: no description nor declared_value_aoa',
    ),
    payment_method: z.enum(PAYMENT_METHODS).optional(),
    quoted_fee_aoa: z.number().int().nullable().optional(),
    courier: z.object({ name: z.string().nullable() }).nullable().optional(),
    scheduled_pickup_at: Timestamp.nullable().optional(),
    scheduled_delivery_at: Timestamp.nullable().optional(),
    tracking_url: Uri.optional(),
    delivery_pin: z.string().nullable().optional().describe('only with the client_secret'),
    metadata: z.record(z.string(), z.unknown()).optional().describe('only with the client_secret'),
    events: z.array(z.object({ id: z.uuid().optional(), event_type: EventType, occurred_at: Timestamp })),
  })
  .meta({
    id: 'WidgetDelivery',
    examples: [EXAMPLE_WIDGET_DELIVERY],
    description:
      'Delivery trimmed for the browser: no courier tracking_ref, cash_collect_aoa, sla_deadline_at, event payloads or ignored events. ' +
      'Without the client_secret also no delivery_pin and no metadata; origin and destination keep only city and province ' +
      '(no address_line, coordinates or contact) and the parcel no description nor declared_value_aoa.',
  });

export const WidgetDeliveryQuery = z.strictObject({
  client_secret: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      "the client_secret of the widget's creation answer: adds delivery_pin, metadata, the full addresses (address_line, coordinates, " +
        "contact) and the parcel's description and declared_value_aoa. A wrong one is 404.",
    ),
});

const {
  proof_of_delivery: _proof,
  recovery: _recovery,
  recipient_answers: _answers,
  ...widgetCreated
} = EXAMPLE_DELIVERY;

/** The widget's creation answer: the Delivery (without proof_of_delivery, recipient_answers and recovery) plus its client secret, shown once. */
export const WidgetCreatedDelivery = Delivery.omit({ proof_of_delivery: true, recovery: true, recipient_answers: true })
  .extend({
    client_secret: z
      .string()
      .optional()
      .describe(
        'Shown once, in the first answer (not in an Idempotency-Key replay): GET /v1/widget/deliveries/{id}?client_secret=... returns the PIN. ' +
          'Keep it like the PIN; never give it to the courier.',
      ),
  })
  .meta({
    id: 'WidgetCreatedDelivery',
    examples: [
      {
        ...widgetCreated,
        metadata: { ...EXAMPLE_DELIVERY.metadata, source: 'widget' },
        client_secret: `${EXAMPLE_DELIVERY.id}_secret_4fQ9zK2mW7xR1tB8nC3vL6pJ0sD5hG`,
      },
    ],
  });

export const TrackingView = z
  .object({
    reference: z.string(),
    status: Status,
    events: z.array(z.object({ event_type: EventType, occurred_at: Timestamp })),
  })
  .meta({ id: 'TrackingView', examples: [EXAMPLE_TRACKING] });

/** `:id` of a delivery route. */
export const DeliveryId = z.object({ id: z.uuid() });

/** How many `metadata[key]=value` pairs a list may filter on. */
export const MAX_METADATA_FILTERS = 5;

/**
 * `metadata[key]=value` (deepObject): exact values of the merchant's metadata, up to 5 pairs, all of them matching.
 * The route gathers the bracketed parameters into this object before validation (src/deliveries/list-filters.ts).
 */
const ListMetadataFilter = z
  .record(
    z
      .string()
      .min(1)
      .max(40)
      .regex(/^[^[\]]+$/, 'no brackets'),
    z.string().min(1).max(500, 'at most 500 characters'),
  )
  .refine((m) => Object.keys(m).length <= MAX_METADATA_FILTERS, {
    message: `at most ${MAX_METADATA_FILTERS} metadata filters`,
    params: { code: 'too_large' },
  })
  .meta({
    description:
      'metadata[key]=value: deliveries whose metadata has exactly this value at this key (a number or boolean as its JSON text), ' +
      `e.g. metadata[order_id]=KIANDA-1042; up to ${MAX_METADATA_FILTERS} pairs, all must match`,
    examples: [{ order_id: 'KIANDA-1042' }],
  });

export const ListQuery = PaginationQuery.extend({
  status: z
    .string()
    .optional()
    .describe('one status, or a comma-separated list')
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      const list = value.split(',').map((s) => s.trim());
      const unknown = list.filter((s) => !(STATUSES as readonly string[]).includes(s));
      if (unknown.length) {
        ctx.addIssue({
          code: 'custom',
          params: { code: 'invalid_enum' },
          message: `unknown status ${unknown.map((s) => JSON.stringify(s)).join(', ')}; one of ${STATUSES.join(', ')}`,
        });
        return z.NEVER;
      }
      return list as (typeof STATUSES)[number][];
    }),
  inserted_at_gte: dateTime.optional().describe('created on or after (inclusive)'),
  inserted_at_lte: dateTime.optional().describe('created on or before (inclusive)'),
  sort: z.enum(['inserted_at_desc', 'inserted_at_asc']).default('inserted_at_desc'),
  search: z
    .string()
    .max(200)
    .optional()
    .describe('case-insensitive substring of reference, origin and destination city and address line'),
  company_id: z.uuid().optional().describe('the courier company now carrying it (it follows an automatic failover)'),
  metadata: ListMetadataFilter.optional(),
  recipient_phone: z
    .string()
    .max(50)
    .regex(/^[0-9+()\-. ]*[0-9][0-9+()\-. ]*$/, 'digits, with +, spaces, dots, dashes or brackets')
    .optional()
    .describe(
      "the destination contact's phone; digits compared (`+244 923-456-789` finds `244923456789`), other characters ignored",
    ),
});
