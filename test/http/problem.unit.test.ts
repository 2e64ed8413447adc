// Problem details (src/http/problem.ts) and the error catalog (src/http/error-catalog.ts): the body every 4xx/5xx
// carries, and docs/errors.md held to the catalog. Pure: no stack.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { ERROR_CATALOG } from '../../src/http/error-catalog.js';
import {
  ApiError,
  ERROR_CODES,
  FIELD_ERROR_CODES,
  notFound,
  problemBody,
  titleFor,
  unauthorized,
  validationFailed,
} from '../../src/http/problem.js';

const BASE = 'https://api.example.test';

describe('problem details (RFC 9457)', () => {
  it('type is the base URL plus /errors/<code>; title from the status; no errors member when there are none', () => {
    expect(problemBody(BASE, 404, 'not_found', 'Delivery not found.')).toEqual({
      type: `${BASE}/errors/not_found`,
      title: 'Not found',
      status: 404,
      detail: 'Delivery not found.',
      error: 'not_found',
    });
    expect(problemBody(BASE, 422, 'validation_failed', 'x', [])).not.toHaveProperty('errors');
  });

  it('a specific 422 code keeps the title "Validation error"; other statuses their own title, unknown ones "Error"', () => {
    expect(problemBody(BASE, 422, 'quote_expired', 'x').title).toBe('Validation error');
    expect(problemBody(BASE, 409, 'delivery_not_cancellable', 'x').title).toBe('Conflict');
    expect(problemBody(BASE, 503, 'not_ready', 'x').title).toBe('Service unavailable');
    expect(titleFor(418)).toBe('Error');
    // Every status the catalog answers with has its own title (431 headers_too_large was "Error").
    for (const status of new Set(Object.values(ERROR_CATALOG).map((e) => e.status))) {
      expect(titleFor(status), String(status)).not.toBe('Error');
    }
  });

  it('field errors and extensions (current_status) are members of the body', () => {
    const errors = [{ pointer: '/parcel/weight_grams', code: 'too_small' as const, detail: 'too small' }];
    const body = problemBody(BASE, 409, 'delivery_transition_not_allowed', 'no', errors, { current_status: 'pending' });
    expect(body.errors).toEqual(errors);
    expect(body.current_status).toBe('pending');
  });

  it('the helpers: 404 names what is missing, 401 by default about the key, 422 joins the field details', () => {
    expect(notFound('Quote')).toMatchObject({ statusCode: 404, code: 'not_found', detail: 'Quote not found.' });
    expect(notFound().detail).toBe('Delivery not found.');
    expect(unauthorized()).toMatchObject({ statusCode: 401, code: 'unauthorized' });
    const failed = validationFailed([
      { pointer: '/a', code: 'required', detail: 'a is required.' },
      { pointer: '/b', code: 'too_large', detail: 'b is too large.' },
    ]);
    expect(failed).toBeInstanceOf(ApiError);
    expect(failed).toMatchObject({ statusCode: 422, code: 'validation_failed' });
    expect(failed.detail).toBe('a is required. b is too large.');
    expect(failed.errors).toHaveLength(2);
  });

  it('codes are unique', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    expect(new Set(FIELD_ERROR_CODES).size).toBe(FIELD_ERROR_CODES.length);
  });
});

describe('the error catalog', () => {
  it('has an entry for exactly the error codes, each with a 4xx/5xx status and text to show', () => {
    expect(Object.keys(ERROR_CATALOG).sort()).toEqual([...ERROR_CODES].sort());
    for (const [code, info] of Object.entries(ERROR_CATALOG)) {
      expect(info.status >= 400 && info.status < 600, code).toBe(true);
      expect(info.meaning && info.todo && info.example, code).toBeTruthy();
    }
  });

  it('a few codes keep their documented status', () => {
    expect(ERROR_CATALOG.invalid_json.status).toBe(400);
    expect(ERROR_CATALOG.unauthorized.status).toBe(401);
    expect(ERROR_CATALOG.delivery_not_cancellable.status).toBe(409);
    expect(ERROR_CATALOG.payload_too_large.status).toBe(413);
    expect(ERROR_CATALOG.quote_expired.status).toBe(422);
    expect(ERROR_CATALOG.rate_limited.status).toBe(429);
    expect(ERROR_CATALOG.upstream_unavailable.status).toBe(502);
    expect(ERROR_CATALOG.cancellation_pending.status).toBe(503);
  });

  const errorsDoc = () => fs.readFileSync(path.join(ROOT_DIR, 'docs/errors.md'), 'utf8');

  it('docs/errors.md lists every error code and field code', () => {
    const text = errorsDoc();
    const missing = [...ERROR_CODES, ...FIELD_ERROR_CODES].filter((code) => !text.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });

  it("docs/errors.md's table is the catalog, row for row", () => {
    const text = errorsDoc();
    const missing = Object.entries(ERROR_CATALOG)
      .map(([code, info]) => `| \`${code}\` | ${info.status} | ${info.meaning} | ${info.todo} |`)
      .filter((row) => !text.includes(row));
    expect(missing).toEqual([]);
  });
});
