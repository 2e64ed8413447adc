// The central error handler: every 4xx and 5xx leaves as application/problem+json (RFC 9457),
// Fastify's own errors included. Internals (stacks, SQL) go to the log, never into a body.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  ApiError,
  FIELD_ERROR_CODES,
  problemBody,
  type ErrorCode,
  type FieldError,
  type FieldErrorCode,
} from '../problem.js';
import { isDependencyOutage } from '../unavailable.js';

declare module 'fastify' {
  interface FastifyReply {
    problem(error: ApiError): FastifyReply;
  }
}

const FASTIFY_CODES: Record<string, { status: number; code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    detail: 'Send the request body as application/json.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'invalid_content_length',
    detail: 'The Content-Length header does not match the body.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'payload_too_large',
    detail: 'The request body is larger than the API accepts.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'invalid_json',
    detail: 'The body is empty but Content-Type says application/json.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json', detail: 'The request body is not valid JSON.' },
};

/** A dependency's outage (src/http/unavailable.ts): 503 with Retry-After, the client may retry. */
const OUTAGE =
  'A service this request needs did not answer. Retry in a few seconds; a request with the same Idempotency-Key is safe to repeat.';
const OUTAGE_RETRY_S = '2';

/**
 * Postgres refusing a string the request carried: a NUL character (\u0000), which neither text nor jsonb can hold,
 * a lone UTF-16 surrogate (\ud800) in a value stored as jsonb, or a character the database encoding lacks.
 * The request is at fault, not the server: 422.
 */
const UNSTORABLE =
  'The request contains a character that cannot be stored (\\u0000 or an unpaired surrogate such as \\ud800).';
function unstorableInput(err: { code?: string; detail?: string; statusCode?: number }): boolean {
  if (err.statusCode) return false;
  if (err.code === '22021' || err.code === '22P05') return true; // character_not_in_repertoire, untranslatable_character
  return err.code === '22P02' && /unicode|surrogate/i.test(err.detail ?? ''); // invalid_text_representation of json
}

/** zod issue codes (the `keyword` of a validation error) and the documented field error code each becomes. */
const ZOD_CODES: Record<string, FieldErrorCode> = {
  invalid_type: 'invalid_type',
  too_small: 'too_small',
  too_big: 'too_large',
  invalid_format: 'invalid_format',
  invalid_value: 'invalid_enum', // z.enum and z.literal
};

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params?: { params?: { code?: unknown }; errors?: { code: string }[][]; keys?: string[] };
}

/**
 * Our code for a zod issue: never zod's own `custom` or `invalid_union`. A refinement names its code in
 * `params.code` (e.g. `ctx.addIssue({ code: 'custom', params: { code: 'not_allowed' }, ... })`); anything
 * without a mapping is `invalid`.
 */
function fieldCode(v: ValidationIssue): FieldErrorCode {
  // zod 4 leaves the input out of issues; a missing value reads "expected X, received undefined".
  if (v.keyword === 'invalid_type' && /received undefined/.test(v.message ?? '')) return 'required';
  if (v.keyword === 'custom') {
    const own = v.params?.params?.code;
    return (FIELD_ERROR_CODES as readonly unknown[]).includes(own) ? (own as FieldErrorCode) : 'invalid';
  }
  // A value no member of a union takes: a wrong type when every member refused its type.
  if (v.keyword === 'invalid_union') {
    const branches = v.params?.errors ?? [];
    return branches.length > 0 && branches.every((issues) => issues.every((i) => i.code === 'invalid_type'))
      ? 'invalid_type'
      : 'invalid';
  }
  return ZOD_CODES[v.keyword] ?? 'invalid';
}

/** A JSON Pointer token: `~` and `/` escaped (RFC 6901). */
const pointerToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * A field the contract does not name (a strict object's `unrecognized_keys` issue, which lists them all): one item
 * per field, code `unknown_field`, at its own pointer (`/payment_methd`, `/origin/floor`) or query parameter.
 */
function unknownFields(v: ValidationIssue, path: string, context: string | undefined): FieldError[] {
  return (v.params?.keys ?? []).map((key) => {
    const where = [...path.split('/').slice(1), key].join('.');
    const detail = `${where} is not a field of this request; check its spelling against the reference.`;
    if (context === 'querystring' || context === 'headers')
      return { parameter: path ? path.slice(1).split('/')[0] : key, code: 'unknown_field', detail };
    return { pointer: `${path}/${pointerToken(key)}`, code: 'unknown_field', detail };
  });
}

/** Turns a zod issue path (`/parcel/weight_grams`) and message into our field error. */
function fieldErrors(err: FastifyError & { validation: ValidationIssue[] }, context: string | undefined): FieldError[] {
  return err.validation.flatMap((v): FieldError | FieldError[] => {
    const path = v.instancePath === '/' ? '' : v.instancePath;
    if (v.keyword === 'unrecognized_keys') return unknownFields(v, path, context);
    const code = fieldCode(v);
    const where = path ? path.slice(1).replace(/\//g, '.') : context === 'body' ? 'body' : 'value';
    const detail = code === 'required' ? `${where} is required.` : `${where}: ${v.message ?? 'is invalid'}.`;
    if (context === 'querystring' || context === 'params' || context === 'headers') {
      return { parameter: path.slice(1).split('/')[0] || 'query', code, detail };
    }
    return { pointer: path || '', code, detail };
  });
}

export default fp(async (app, opts: { baseUrl: string }) => {
  const send = (reply: FastifyReply, error: ApiError) => {
    if (error.headers) reply.headers(error.headers);
    return reply
      .code(error.statusCode)
      .type('application/problem+json')
      .send(problemBody(opts.baseUrl, error.statusCode, error.code, error.detail, error.errors, error.extensions));
  };
  app.decorateReply('problem', function (this: FastifyReply, error: ApiError) {
    return send(this, error);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply) =>
    send(reply, new ApiError(404, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ApiError) return send(reply, err);
    if (hasZodFastifySchemaValidationErrors(err)) {
      const context = (err as { validationContext?: string }).validationContext;
      // A malformed path id names no resource we have: 404, like an unknown one.
      if (context === 'params') return send(reply, new ApiError(404, 'not_found', 'Resource not found.'));
      const errors = fieldErrors(err, context);
      const detail =
        context === 'querystring'
          ? `Invalid query parameter: ${errors.map((e) => e.parameter).join(', ')}.`
          : errors.map((e) => e.detail).join(' ');
      return send(reply, new ApiError(422, 'validation_failed', detail, errors));
    }
    const known = err.code ? FASTIFY_CODES[err.code] : undefined;
    if (known) return send(reply, new ApiError(known.status, known.code, known.detail));
    if (unstorableInput(err as { code?: string; detail?: string; statusCode?: number })) {
      request.log.info({ err }, 'input the database cannot store');
      return send(reply, new ApiError(422, 'validation_failed', UNSTORABLE));
    }
    if (err.statusCode === 429) {
      return send(reply, new ApiError(429, 'rate_limited', err.message || 'Too many requests.'));
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      request.log.info({ err }, 'client error');
      return send(reply, new ApiError(err.statusCode, 'bad_request', err.message));
    }
    if (isDependencyOutage(err)) {
      request.log.warn({ err }, 'a dependency is unavailable');
      return send(
        reply,
        new ApiError(503, 'service_unavailable', OUTAGE, undefined, { 'retry-after': OUTAGE_RETRY_S }),
      );
    }
    request.log.error({ err }, 'unhandled error');
    return send(
      reply,
      new ApiError(
        500,
        'internal_error',
        'Something went wrong on our side. Retry later; if it persists, contact support with the x-request-id.',
      ),
    );
  });
});
