// The Fastify server's options: logging, body limit, request ids, trusted proxies, and problem+json for the errors
// raised before a request reaches Fastify's error handler (bad URLs, unparsable HTTP).
import type { FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Config } from '../platform/config.js';
import { loggerOptions } from '../platform/observability/logger.js';
import { problemBody, type ErrorCode } from './problem.js';
import { trustProxyOption } from './trust-proxy.js';

/** A problem+json answer on a raw Node response (router callbacks that run before Fastify's reply exists). */
function rawProblem(res: ServerResponse, baseUrl: string, status: number, code: ErrorCode, detail: string) {
  const body = JSON.stringify(problemBody(baseUrl, status, code, detail));
  res.writeHead(status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': randomUUID(),
  });
  res.end(body);
}

/**
 * The server's options. `logger`: false for none; an object is merged over the defaults (pino JSON at LOG_LEVEL with
 * secrets redacted, src/platform/observability/logger.ts), e.g. `{ stream }` to capture the lines.
 */
export function fastifyOptions(config: Config, logger: boolean | object | undefined): FastifyServerOptions {
  return {
    logger:
      logger === false
        ? false
        : { ...loggerOptions(config.logLevel, 'api'), ...(typeof logger === 'object' ? logger : {}) },
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // X-Forwarded-For is believed only from the proxies TRUST_PROXY names (hop count or addresses); default none.
    trustProxy: trustProxyOption(config.trustProxy),
    // Errors raised before a request reaches Fastify's error handler are problem+json too.
    routerOptions: {
      ignoreTrailingSlash: true,
      onBadUrl: (_path, _req, res) =>
        rawProblem(
          res,
          config.baseUrl,
          400,
          'invalid_url',
          'The request path is not a valid URL (bad percent-encoding).',
        ),
      // No resource has an id that long.
      onMaxParamLength: (_path, _req, res) => rawProblem(res, config.baseUrl, 404, 'not_found', 'Resource not found.'),
    },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) return;
      const [status, code, detail]: [number, ErrorCode, string] =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'headers_too_large', 'The request headers are too large.']
          : [400, 'bad_request', 'The request could not be parsed as HTTP.'];
      const body = JSON.stringify(problemBody(config.baseUrl, status, code, detail));
      socket.end(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/problem+json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  };
}
