// Logs: pino JSON, one line per record, in the API (Fastify's logger) and the worker (its own lines and Temporal's,
// through TemporalPinoLogger). Secrets are never written: `censorLine` censors the fields that hold them wherever they
// sit in a line, and the request serializer masks secret query parameters (the widget's client_secret travels in the
// query string). test/platform/observability.test.ts runs real traffic and greps the logs for every secret.
import pino, { type Logger as Pino, type LoggerOptions } from 'pino';
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';

/**
 * Names of fields that hold secrets: keys, tokens, webhook and fleet secrets, the delivery PIN, client secrets, and the
 * dashboard's: session cookies (request and response headers, parsed cookies, the session token), CSRF tokens (the
 * header, the session's field), passwords and their hashes, set-password links and their tokens.
 */
const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'set-cookie',
  'dashboard_session',
  '__Host-dashboard_session',
  'sessionToken',
  'session_token',
  'csrf_token',
  'csrfToken',
  'x-csrf-token',
  'password_hash',
  'passwordHash',
  'set_password_url',
  'secret',
  'previous_secret',
  'fleet_secret',
  'client_secret',
  'secret_key',
  'publishable_key',
  'delivery_pin',
  'pin',
  'token',
  'adminToken',
  'metricsToken',
  'apiKey',
  'temporalApiKey',
  'password',
];

const SECRET = new Set(SECRET_FIELDS);
/** A secret field's name as a key in a JSON line. */
const SECRET_KEY = new RegExp(
  `"(?:${SECRET_FIELDS.map((f) => f.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|')})":`,
);

/** `value` with every field named as a secret, at any depth, replaced by `[redacted]`. */
function censor(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(censor);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, SECRET.has(key) ? '[redacted]' : censor(v)]));
}

/**
 * A finished log line (pino's JSON, with bindings, serializers and mixins applied) with every secret field censored,
 * at any depth. Most lines name no secret field: they are written as they are, for the cost of one regular expression
 * (pino's path-based `redact` cost every request about 70 µs and most of its garbage in building the child logger,
 * whether or not anything was logged). A line that cannot be read back is withheld rather than written unchecked.
 */
export function censorLine(line: string): string {
  if (!SECRET_KEY.test(line)) return line;
  try {
    return `${JSON.stringify(censor(JSON.parse(line)))}\n`;
  } catch {
    return `${JSON.stringify({ level: 50, time: Date.now(), msg: 'A log line was withheld: it names a secret field and could not be censored' })}\n`;
  }
}

const SECRET_QUERY = /([?&](?:client_secret|secret|token|key|api_key|pin)=)[^&#]*/gi;

/** A URL with the values of secret query parameters masked. */
export function redactUrl(url: string): string {
  return url.includes('?') ? url.replace(SECRET_QUERY, '$1[redacted]') : url;
}

/** pino's options for every process: level, redaction, the request serializer. `name`: api, worker. */
export function loggerOptions(level: string, name: string): LoggerOptions {
  return {
    level,
    name,
    hooks: { streamWrite: censorLine },
    serializers: {
      err: pino.stdSerializers.err,
      error: pino.stdSerializers.err,
      // Fastify's request serializer, with the query's secrets masked.
      req: (req: {
        method?: string;
        url?: string;
        hostname?: string;
        host?: string;
        ip?: string;
        socket?: { remotePort?: number };
      }) => ({
        method: req.method,
        url: redactUrl(req.url ?? ''),
        host: req.host ?? req.hostname,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  };
}

/** The worker's logger; `destination` (default stdout) lets tests capture the lines. */
export function createLogger(level: string, name: string, destination?: pino.DestinationStream): Pino {
  return destination ? pino(loggerOptions(level, name), destination) : pino(loggerOptions(level, name));
}

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

const DELIVERY_WORKFLOW_ID = /^delivery-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * Temporal's logger (Runtime.install({ logger })) writing through pino: the worker's, workflows' (with workflowId,
 * runId, workflowType), activities' (with activityType and the workflow's ids) and Temporal Core's lines, each with the
 * metadata Temporal gives, plus `deliveryId` (from a delivery workflow's id, when no interceptor named it already).
 */
export class TemporalPinoLogger implements Logger {
  constructor(private readonly pino: Pino) {}

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    const method = LEVELS[level] ?? 'info';
    if (!this.pino.isLevelEnabled(method)) return;
    const fields: Record<string, unknown> = {};
    if (meta) {
      for (const [key, value] of Object.entries(meta))
        fields[key === 'error' && value instanceof Error ? 'err' : key] = value;
      const workflowId = typeof meta.workflowId === 'string' ? meta.workflowId : undefined;
      const match = workflowId ? DELIVERY_WORKFLOW_ID.exec(workflowId) : null;
      if (match && fields.deliveryId === undefined) fields.deliveryId = match[1];
    }
    this.pino[method](fields, message);
  }
  trace(message: string, meta?: LogMetadata) {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata) {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata) {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata) {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata) {
    this.log('ERROR', message, meta);
  }
}
