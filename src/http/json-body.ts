// The one JSON body parser of the routes that need their own (Fastify's built-in one serves the rest): it replaces
// the built-in parser in the calling plugin's scope only. Malformed JSON is 400 invalid_json, like everywhere else.
import type { FastifyInstance } from 'fastify';
import { ApiError } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact body text, kept by `parseJsonBodies(app, { keepRaw: true })`. */
    rawBody?: string;
  }
}

export interface JsonBodyOptions {
  /** Keep the exact text in `request.rawBody` (a signature covers the bytes, not the parsed value). */
  keepRaw?: boolean;
  /** A blank body is no body (undefined) even when the client says application/json. */
  allowEmpty?: boolean;
}

export function parseJsonBodies(
  app: Pick<FastifyInstance, 'removeContentTypeParser' | 'addContentTypeParser'>,
  options: JsonBodyOptions = {},
) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (options.keepRaw) request.rawBody = text;
    if (options.allowEmpty && text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, 'invalid_json', 'The request body is not valid JSON.'), undefined);
    }
  });
}
