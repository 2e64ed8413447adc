// Request and response schemas of /v1/api_keys (OpenAPI through the zod type provider), and the shape a key row
// leaves the API in.
import { z } from 'zod';
import { Timestamp } from '../http/schemas.js';
import { pageOf, withSecret } from '../http/schema-builders.js';
import { PAYMENT_METHODS } from '../../shared/deliveries/vocabulary.js';

/** Active keys per tenant and mode. */
export const MAX_ACTIVE_KEYS = 50;
/** Allowed origins per publishable key. */
export const MAX_ORIGINS = 20;

const EXAMPLE_KEY = {
  id: '5b7c9d1e-3f2a-4b6c-8d0e-1f2a3b4c5d6e',
  kind: 'publishable',
  livemode: true,
  prefix: 'pk_live_7Hq2',
  publishable_key: 'pk_live_7Hq2mXc9Lr4Tz8Wb1Kd6Nf3Vy5Pg0Sj2',
  allowed_origins: ['https://loja-kianda.ao'],
  widget_payment_methods: ['prepaid', 'bank_transfer'],
  widget_cod_amount_aoa: null,
  status: 'active',
  created_at: '2026-11-23T09:15:04.218Z',
  revoked_at: null,
};

const Origins = z
  .array(z.string().trim().min(1).max(300))
  .max(MAX_ORIGINS)
  .describe(
    `Publishable keys: the origins (scheme://host[:port]) whose pages may use the key, at most ${MAX_ORIGINS}. Stored lower-cased, default ports dropped.`,
  );

/** The `secret` of a creation answer. */
const SECRET =
  'The whole key (`sk_live_`, `pk_live_`, `sk_test_` or `pk_test_` + 32 letters and digits). Shown only in this response: only its hash is kept. ' +
  'Absent from an Idempotency-Key replay (header `idempotent-replay-withheld: secret`).';

export const ApiKey = z
  .object({
    id: z.uuid(),
    kind: z.enum(['secret', 'publishable']).describe('secret: servers, /v1/*; publishable: the widget, /v1/widget/*'),
    livemode: z.boolean().describe('false: a test key (sk_test_ / pk_test_), confined to test objects'),
    prefix: z
      .string()
      .describe(
        'The first 12 characters of the key, to tell keys apart. A secret key is shown whole only when it is created.',
      ),
    publishable_key: z
      .string()
      .nullable()
      .describe(
        'The whole publishable key, readable at any time (it is public: it sits in the shop’s pages). Null for a secret key, ' +
          'and for a publishable key issued before publishable keys were kept whole: rotate it (create one, revoke the old) to read it.',
      ),
    allowed_origins: z
      .array(z.string())
      .describe('Publishable keys: the origins allowed to use it; always empty for a secret key.'),
    widget_payment_methods: z
      .array(z.enum(PAYMENT_METHODS))
      .nullable()
      .describe(
        'Publishable keys: the payment methods a widget delivery may use (default prepaid and bank_transfer: cod is opt-in). Null for a secret key.',
      ),
    widget_cod_amount_aoa: z
      .number()
      .int()
      .nullable()
      .describe(
        'Publishable keys with cod: the AOA centavos the courier collects on every widget cod delivery; null: the widget sends the amount (above zero). Null for a secret key.',
      ),
    status: z.enum(['active', 'revoked']),
    created_at: Timestamp,
    revoked_at: Timestamp.nullable(),
  })
  .meta({ id: 'ApiKey', examples: [EXAMPLE_KEY] });

export const ApiKeyWithSecret = withSecret(ApiKey, 'ApiKeyWithSecret', SECRET, {
  ...EXAMPLE_KEY,
  secret: 'pk_live_7Hq2mXc9Lr4Tz8Wb1Kd6Nf3Vy5Pg0Sj2',
});

export const ApiKeyList = pageOf(ApiKey, EXAMPLE_KEY);

export const CreateApiKeyBody = z
  .strictObject({
    kind: z.enum(['secret', 'publishable']),
    allowed_origins: Origins.optional(),
  })
  .meta({ examples: [{ kind: 'publishable', allowed_origins: ['https://loja-kianda.ao'] }, { kind: 'secret' }] });

const WidgetPaymentMethods = z
  .array(z.enum(PAYMENT_METHODS))
  .min(1)
  .max(PAYMENT_METHODS.length * 2)
  .describe(
    'The payment methods a widget delivery made with this key may use, at least one (cod is the one where the courier collects cash).',
  );

const WidgetCodAmount = z
  .number()
  .int()
  .positive()
  .nullable()
  .describe(
    'With cod: the AOA centavos the courier collects on every widget cod delivery (the browser cannot change it); null: the widget sends the amount.',
  );

/** PATCH /v1/api_keys/{id}: the fields sent replace the stored ones, at least one. */
export const UpdateApiKeyBody = z
  .strictObject({
    allowed_origins: Origins.optional(),
    widget_payment_methods: WidgetPaymentMethods.optional(),
    widget_cod_amount_aoa: WidgetCodAmount.optional(),
  })
  .meta({
    examples: [
      { allowed_origins: ['https://loja-kianda.ao', 'https://www.loja-kianda.ao'] },
      { widget_payment_methods: ['prepaid', 'cod'], widget_cod_amount_aoa: 1_500_000 },
    ],
  });
