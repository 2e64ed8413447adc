// Route shapes several resources share: idempotent writes, the paginated list of a tenant's objects, and an action on
// one object named by its id (revoke a key, rotate a secret). Each registers or builds ordinary Fastify routes.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from './problem.js';
import type { Scope } from '../platform/scope.js';
import { scopeOf } from './plugins/auth.js';
import { IdParam, IdempotencyHeaders, PaginationQuery } from './schemas.js';

/** The Fastify instance a route module registers on. */
type App = Parameters<FastifyPluginAsyncZod>[0];

/** What a route says of itself in the OpenAPI document, and its answers. */
interface RouteDoc {
  tags: string[];
  operationId: string;
  summary: string;
  description?: string;
  response: Record<number, unknown>;
}

/**
 * The options of an idempotent write: the idempotency plugin answers a repeated Idempotency-Key with the first answer
 * (config.idempotent), and the schema documents that header.
 */
export function idempotent<Schema extends object>(schema: Schema) {
  return { config: { idempotent: true }, schema: { ...schema, headers: IdempotencyHeaders } };
}

/**
 * Registers GET `url`: one page (?limit, ?offset: PaginationQuery) of the rows `read` finds, each shown by `view`,
 * answered as `{ data, pagination }` (the 200 schema is a pageOf, src/http/schema-builders.ts).
 */
export function listRoute<Row>(
  app: App,
  url: string,
  view: (row: Row) => unknown,
  read: (request: FastifyRequest, limit: number, offset: number) => Promise<{ rows: Row[]; hasMore: boolean }>,
  doc: RouteDoc,
): void {
  app.get(url, { schema: { ...doc, querystring: PaginationQuery } }, async (request) => {
    const { limit, offset } = request.query;
    const { rows, hasMore } = await read(request, limit, offset);
    return { data: rows.map(view), pagination: { limit, offset, has_more: hasMore } };
  });
}

/**
 * Registers POST `url` (with an `:id`), an idempotent action on the caller's object of that id: `act` does it and
 * answers the object, shown by `view`, or null when the caller's scope has no such object (404 naming `what`).
 */
export function objectAction<Row>(
  app: App,
  url: string,
  what: string,
  view: (row: Row) => unknown,
  act: (scope: Scope, id: string) => Promise<Row | null>,
  doc: RouteDoc,
): void {
  app.post(url, idempotent({ ...doc, params: IdParam }), async (request) => {
    const row = await act(scopeOf(request), request.params.id);
    if (!row) throw notFound(what);
    return view(row);
  });
}
