// Request and response schemas of /v1/api_keys (OpenAPI through the zod type provider), and the shape a key row
// leaves the API in.
import { z } from 'zod';
import { Timestamp } from '../http/schemas.js';
import { pageOf, withSecret } from '../http/schema-builders.js';

/** Active keys per tenant and mode. */
export const MAX_ACTIVE_KEYS = 50;
/** Allowed origins per publishable key. */
export const MAX_ORIGINS = 20;

const EXAMPLE_KEY = {
  id: '5b7c9d1e-3f2a-4b6c-8d0e-1f2a3b4c5d6e',
  kind: 'publishable',
  livemode: true,
  prefix: 'pk_live_7Hq2',
  allowed_origins: ['https://loja-kianda.ao'],
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
        'The first 12 characters of the key, to tell keys apart; the whole key is shown only when it is created.',
      ),
    allowed_origins: z
      .array(z.string())
      .describe('Publishable keys: the origins allowed to use it; always empty for a secret key.'),
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

export const UpdateApiKeyBody = z
  .strictObject({ allowed_origins: Origins })
  .meta({ examples: [{ allowed_origins: ['https://loja-kianda.ao', 'https://www.loja-kianda.ao'] }] });
