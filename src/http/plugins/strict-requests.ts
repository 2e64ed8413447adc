// Strict requests: a field the contract does not name is refused (422 validation_failed, one `unknown_field` item per
// field), never silently dropped. The body and query schemas are strict objects (`z.strictObject`; zod's
// `unrecognized_keys` becomes `unknown_field` in src/http/plugins/errors.ts). A route of the API that takes no query
// string, or no body, has no schema to say so: this plugin refuses any query parameter, or any body field, there.
// Registered with fastify-plugin before the routes, so its onRoute hook sees every one of them.
import fp from 'fastify-plugin';
import type { FastifyRequest, RouteOptions } from 'fastify';
import { validationFailed, type FieldError } from '../problem.js';

/** The API's own routes (merchant, widget, fleet, test helpers, dashboard JSON); not pages, assets or /errors. */
const API_ROUTE = /^\/(v1|dashboard\/api)\//;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const hint = 'check its spelling against the reference.';

function refuseQuery(request: FastifyRequest) {
  const names = Object.keys((request.query as Record<string, unknown> | undefined) ?? {});
  if (names.length === 0) return;
  const errors: FieldError[] = names.map((name) => ({
    parameter: name,
    code: 'unknown_field',
    detail: `${name} is not a query parameter of this route; ${hint}`,
  }));
  throw validationFailed(errors, `Invalid query parameter: ${names.join(', ')}.`);
}

function refuseBody(request: FastifyRequest) {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const names = Object.keys(body);
  if (names.length === 0) return;
  throw validationFailed(
    names.map((name) => ({
      pointer: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      code: 'unknown_field',
      detail: `${name} is not a field of this request; ${hint}`,
    })),
  );
}

export default fp(async (app) => {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!API_ROUTE.test(route.url)) return;
    const methods = [route.method].flat();
    const checks: ((request: FastifyRequest) => void)[] = [];
    if (!route.schema?.querystring) checks.push(refuseQuery);
    if (!route.schema?.body && methods.some((m) => BODY_METHODS.has(m))) checks.push(refuseBody);
    if (checks.length === 0) return;
    const own = route.preValidation;
    const strict = async (request: FastifyRequest) => {
      for (const check of checks) check(request);
    };
    route.preValidation = own ? [strict, ...[own].flat()] : strict;
  });
});
