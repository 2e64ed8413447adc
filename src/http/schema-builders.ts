// Schema pieces several resources build the same way (OpenAPI through the zod type provider).
import { z } from 'zod';
import { Pagination } from './schemas.js';
import { EXAMPLE_PAGINATION } from './examples.js';

/** A page of a list: `data` of `item`, then `pagination`; its example holds the one item `example`. */
export function pageOf<Item extends z.ZodType>(item: Item, example: unknown) {
  return z
    .object({ data: z.array(item), pagination: Pagination })
    .meta({ examples: [{ data: [example], pagination: EXAMPLE_PAGINATION }] });
}

/**
 * `base` and the `secret` only a creation (or rotation) answer carries, named `id` in the OpenAPI document. The secret is
 * optional: an Idempotency-Key replay answers without it (header `idempotent-replay-withheld: secret`).
 */
export function withSecret<Shape extends z.ZodRawShape>(
  base: z.ZodObject<Shape>,
  id: string,
  description: string,
  example: object,
) {
  return base.extend({ secret: z.string().optional().describe(description) }).meta({ id, examples: [example] });
}
