// GET /v1/deliveries?metadata[order_id]=KIANDA-1042 (design.md "Finding deliveries by the merchant's own words"):
// the query string parser leaves `metadata[order_id]` a parameter of its own; before the query is validated, every
// `metadata[<key>]` parameter is gathered into one `metadata` object, which the strict ListQuery validates (at most 5
// pairs, one value each). A malformed name (`metadata[]`, `metadata[a][b]`) is refused as an unknown parameter, and
// any other unknown parameter still is by the strict schema.
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { validationFailed } from '../http/problem.js';
import type { ListFilter } from './list-repository.js';
import type { ListQuery } from './schemas.js';

const BRACKETED = /^metadata\[([^[\]]+)\]$/;

export async function gatherMetadataFilters(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  const names = Object.keys(query).filter((name) => name.startsWith('metadata['));
  if (names.length === 0) return;
  const malformed = names.filter((name) => !BRACKETED.test(name));
  if (malformed.length > 0) {
    throw validationFailed(
      malformed.map((name) => ({
        parameter: name,
        code: 'unknown_field' as const,
        detail: `${name} is not a query parameter of this route; filter on metadata with metadata[key]=value.`,
      })),
      `Invalid query parameter: ${malformed.join(', ')}.`,
    );
  }
  if (query.metadata !== undefined) {
    throw validationFailed([
      { parameter: 'metadata', code: 'invalid_type', detail: 'metadata filters are written metadata[key]=value.' },
    ]);
  }
  // fromEntries, not assignment: a key such as `__proto__` stays a key.
  const gathered = Object.fromEntries(names.map((name) => [BRACKETED.exec(name)![1], query[name]]));
  for (const name of names) delete query[name];
  query.metadata = gathered;
}

/** The repository's filter of a validated list query. */
export function listFilterOf(q: z.infer<typeof ListQuery>): ListFilter {
  return {
    statuses: q.status,
    insertedFrom: q.inserted_at_gte ? new Date(q.inserted_at_gte) : undefined,
    insertedTo: q.inserted_at_lte ? new Date(q.inserted_at_lte) : undefined,
    search: q.search,
    companyId: q.company_id,
    metadata: q.metadata,
    recipientPhoneDigits: q.recipient_phone?.replace(/[^0-9]/g, ''),
    ascending: q.sort === 'inserted_at_asc',
    limit: q.limit,
    offset: q.offset,
  };
}
