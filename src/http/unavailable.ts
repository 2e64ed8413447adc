// What an outage of a service the API depends on looks like when it reaches the error handler: Postgres or the
// Temporal frontend unreachable, restarting, out of connections or too slow to answer. Such a request gets
// 503 `service_unavailable` with Retry-After (src/http/plugins/errors.ts), not 500 `internal_error`: the client did
// nothing wrong and a retry is the right move (docs/errors.md).
import { ServiceError } from '@temporalio/client';

/**
 * The Postgres SQLSTATEs of a server that is down, restarting, full or too slow: connection exceptions (class 08),
 * shutdowns and `cannot_connect_now` (57P01-57P03), `too_many_connections` (53300), a statement timeout (57014).
 */
const PG_UNAVAILABLE_STATES = /^(08...|57P0[1-3]|53300|57014)$/;
/** A socket that could not be opened or broke: the server is away. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** node-postgres's own errors for a connection that never came or died (they carry no code). */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Query read timeout$/,
  /^Client has encountered a connection error/,
];
/** gRPC statuses of a Temporal frontend that is away or too slow: UNAVAILABLE, DEADLINE_EXCEEDED. */
const GRPC_UNAVAILABLE = new Set([14, 4]);

/** Whether an error is a dependency's outage (503, retry) rather than something else (a bug: 500). */
export function isDependencyOutage(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof ServiceError) {
    const code = (err.cause as { code?: unknown } | undefined)?.code;
    return typeof code === 'number' && GRPC_UNAVAILABLE.has(code);
  }
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (PG_UNAVAILABLE_STATES.test(code) || NETWORK_CODES.has(code))) return true;
  return PG_MESSAGES.some((m) => m.test(err.message));
}
