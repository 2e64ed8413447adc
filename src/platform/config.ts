// Every setting the processes read, in one place. Each comes from an environment variable with a dev default.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_WEBHOOK_SCHEDULE_MS } from '../../shared/webhooks/definitions.js';

/** The project folder: the nearest folder above this module holding package.json (source or bundled build). */
export const ROOT_DIR = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();

const num = (name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number, got "${raw}"`);
  return value;
};

const bool = (name: string, fallback: boolean, env: NodeJS.ProcessEnv = process.env): boolean => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
};

const HOUR = 3600 * 1000;
export const DEFAULT_STATE_BUDGETS_MS = {
  pending: 2 * HOUR,
  assigned: 4 * HOUR,
  pickup_ready: 4 * HOUR,
  in_transit: 24 * HOUR,
  out_for_delivery: 8 * HOUR,
};

/** STATE_BUDGETS_MS is JSON, e.g. {"pending":7200000}; missing states keep their default. */
function stateBudgets(raw: string | undefined): Config['stateBudgetsMs'] {
  if (!raw) return { ...DEFAULT_STATE_BUDGETS_MS };
  try {
    return { ...DEFAULT_STATE_BUDGETS_MS, ...(JSON.parse(raw) as Config['stateBudgetsMs']) };
  } catch {
    throw new Error(`STATE_BUDGETS_MS must be JSON like {"pending":7200000}, got "${raw}"`);
  }
}

/** WEBHOOK_SCHEDULE_MS is a JSON array of waits in ms, e.g. [0,5000,300000]; default the Standard Webhooks schedule. */
function webhookSchedule(raw: string | undefined): number[] {
  if (!raw) return [...DEFAULT_WEBHOOK_SCHEDULE_MS];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = null;
  }
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0)
  ) {
    throw new Error(`WEBHOOK_SCHEDULE_MS must be a JSON array of waits in ms like [0,5000,300000], got "${raw}"`);
  }
  return value as number[];
}

/** A whole number of at least `min`: the purge's interval, batch size and retention periods. */
const whole = (name: string, fallback: number, min: number, env: NodeJS.ProcessEnv = process.env): number => {
  const value = num(name, fallback, env);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be a whole number of at least ${min}, got "${env[name]}"`);
  return value;
};

/** Webhook messages must outlive their retry schedule, or a message could be purged while it is still being retried. */
function webhookRetention(retentionMs: number, schedule: number[]): number {
  const scheduleMs = schedule.reduce((sum, wait) => sum + wait, 0);
  if (retentionMs < scheduleMs) {
    throw new Error(
      `WEBHOOK_RETENTION_MS (${retentionMs}) must be at least the whole webhook retry schedule (${scheduleMs} ms)`,
    );
  }
  return retentionMs;
}

/**
 * TRUST_PROXY: unset or "false" trusts no proxy (the client address is the socket's); a whole number trusts that
 * many hops of X-Forwarded-For when the peer is on a private network (src/lib/trust-proxy.ts); otherwise a
 * comma-separated list of proxy addresses or CIDRs (proxy-addr syntax, e.g. "10.0.0.0/8,loopback").
 * "true" (trust every hop) is refused: any client could then choose its address.
 */
function trustProxy(raw: string | undefined): Config['trustProxy'] {
  const value = raw?.trim() ?? '';
  if (value === '' || value.toLowerCase() === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value) || false;
  if (value.toLowerCase() === 'true') {
    throw new Error(
      'TRUST_PROXY=true would let any client choose its address; give the number of proxy hops or their addresses',
    );
  }
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/** A TCP port (0: any free one), or undefined when unset. */
function optionalPort(name: string, env: NodeJS.ProcessEnv): number | undefined {
  if (!env[name]) return undefined;
  const value = whole(name, 0, 0, env);
  if (value > 65535) throw new Error(`${name} must be a TCP port, got "${env[name]}"`);
  return value;
}

/** METRICS_TOKEN guards `GET /metrics` on the API port: a guessable one would publish the service's figures. */
function metricsToken(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (raw.length < 32) throw new Error('METRICS_TOKEN must be at least 32 characters (e.g. `openssl rand -hex 32`)');
  return raw;
}

export interface Config {
  port: number;
  host: string;
  /** Public address of this API; error `type` URIs and `tracking_url` are built from it. */
  baseUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  taskQueue: string;
  /**
   * TLS / mTLS and API key towards a real Temporal cluster or Temporal Cloud (src/temporal.ts): paths of PEM files,
   * the TLS server name, the API key; `tls` true/false forces TLS on or off (default: on when any of these is set).
   */
  temporalTls: {
    enabled: boolean | undefined;
    certPath: string | undefined;
    keyPath: string | undefined;
    caPath: string | undefined;
    serverName: string | undefined;
  };
  temporalApiKey: string | undefined;
  quoteValiditySeconds: number;
  courierTimeoutMs: number;
  paymentWindowMs: number;
  /** Time a state may last without progress before the delivery is `stalled`. */
  stateBudgetsMs: Partial<Record<'pending' | 'assigned' | 'pickup_ready' | 'in_transit' | 'out_for_delivery', number>>;
  dispatchMaxAttempts: number;
  dispatchInitialIntervalMs: number;
  /** Added to quote ETA to give `sla_deadline_at` when no `scheduled_delivery_at` is given. */
  slaGraceMs: number;
  /** How often the worker's reconciler looks for deliveries whose workflow never started. */
  reconcileIntervalMs: number;
  /** A delivery workflow continues as new once its history has this many events (or when Temporal suggests it). */
  workflowHistoryLimit: number;
  /** How long a courier booking that could not be cancelled at once is retried in the background. */
  bookingReleaseRetryMs: number;
  /** One minute of a dispatch policy's assign_timeout_minutes, in ms (tests shorten it). */
  assignTimeoutUnitMs: number;
  /** Test mode: the pause between the fleet events of the test courier that moves by itself (test-auto). */
  simulatedCourierStepMs: number;
  bodyLimitBytes: number;
  rateLimitPerMinute: number;
  widgetRateLimitPerMinute: number;
  /** Failed authentications (401) a client address may make per minute before its /v1 requests get 429. */
  authFailureRateLimitPerMinute: number;
  /** Fastify `trustProxy`: false (default), a hop count, or the proxies' addresses / CIDRs. */
  trustProxy: false | number | string[];
  /** Rate-limit counters live in this Redis (shared by every API replica); in process memory when unset. */
  redisUrl: string | undefined;
  /** Prefix of the rate-limit keys in Redis. */
  rateLimitRedisPrefix: string;
  /** Operator token of `POST /v1/diagnostics/round_trip`; the route does not exist when unset. */
  adminToken: string | undefined;
  /** Allow webhook URLs on loopback addresses (other special-use addresses are always refused). */
  allowLoopbackWebhooks: boolean;
  /** Merchant webhook retry schedule: wait before the first attempt, then after each failed one (ms). */
  webhookScheduleMs: number[];
  /** Per-attempt request timeout of merchant webhooks. */
  webhookTimeoutMs: number;
  /** The maintenance purge (workflows/maintenance): how often it runs, and rows deleted per statement. */
  purgeIntervalMs: number;
  purgeBatchSize: number;
  /** Unused quotes are deleted this long after their `valid_until`. */
  quoteRetentionMs: number;
  /** Fleet webhook receipts (the webhook-ids seen, for dedupe) are deleted this long after receipt. */
  fleetReceiptRetentionMs: number;
  /** Merchant webhook messages and attempts are deleted this long after they were created / made. */
  webhookRetentionMs: number;
  logLevel: string;
  /**
   * Prometheus metrics (docs/operations.md "Observability"). The API serves `GET /metrics` on a second listener on
   * `metricsPort` (never on the API's own port), or on the API port to `Authorization: Bearer <metricsToken>` where a
   * second port cannot be reached; neither set: no metrics endpoint. The worker serves its metrics on `workerMetricsPort`.
   */
  metricsPort: number | undefined;
  /** Address both metrics listeners bind (METRICS_HOST): 127.0.0.1 unless set; production sets it (docker-compose.yml). */
  metricsHost: string;
  metricsToken: string | undefined;
  workerMetricsPort: number | undefined;
  /** How long the worker's deliveries-by-status gauge reuses its Postgres count. */
  metricsStatusCacheMs: number;
  /**
   * The merchant dashboard (docs/dashboard.md): a session ends after `sessionIdleMs` without a request or
   * `sessionMaxMs` after sign-in; a set-password link works for `passwordLinkTtlMs`; `secureCookies` marks the
   * session cookie Secure (on when PUBLIC_BASE_URL is https or NODE_ENV is production); at most
   * `passwordHashConcurrency` password hashes run at once in a process and `passwordHashQueue` more wait (beyond: 503).
   */
  dashboard: {
    sessionIdleMs: number;
    sessionMaxMs: number;
    passwordLinkTtlMs: number;
    secureCookies: boolean;
    passwordHashConcurrency: number;
    passwordHashQueue: number;
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = num('PORT', 3000, env);
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    baseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/$/, ''),
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/delivery_api',
    temporalAddress: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    temporalNamespace: env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE ?? 'deliveries',
    temporalTls: {
      enabled: env.TEMPORAL_TLS ? bool('TEMPORAL_TLS', false, env) : undefined,
      certPath: env.TEMPORAL_TLS_CERT || undefined,
      keyPath: env.TEMPORAL_TLS_KEY || undefined,
      caPath: env.TEMPORAL_TLS_CA || undefined,
      serverName: env.TEMPORAL_TLS_SERVER_NAME || undefined,
    },
    temporalApiKey: env.TEMPORAL_API_KEY || undefined,
    quoteValiditySeconds: num('QUOTE_VALIDITY_SECONDS', 15 * 60, env),
    courierTimeoutMs: num('COURIER_TIMEOUT_MS', 2000, env),
    paymentWindowMs: num('PAYMENT_WINDOW_MS', 48 * 3600 * 1000, env),
    stateBudgetsMs: stateBudgets(env.STATE_BUDGETS_MS),
    dispatchMaxAttempts: num('DISPATCH_MAX_ATTEMPTS', 6, env),
    dispatchInitialIntervalMs: num('DISPATCH_INITIAL_INTERVAL_MS', 2000, env),
    slaGraceMs: num('SLA_GRACE_MS', 24 * 3600 * 1000, env),
    reconcileIntervalMs: num('RECONCILE_INTERVAL_MS', 15_000, env),
    workflowHistoryLimit: whole('WORKFLOW_HISTORY_LIMIT', 10_000, 100, env),
    bookingReleaseRetryMs: num('BOOKING_RELEASE_RETRY_MS', HOUR, env),
    assignTimeoutUnitMs: num('ASSIGN_TIMEOUT_UNIT_MS', 60_000, env),
    simulatedCourierStepMs: whole('SIMULATED_COURIER_STEP_MS', 10_000, 0, env),
    bodyLimitBytes: num('BODY_LIMIT_BYTES', 1024 * 1024, env),
    rateLimitPerMinute: num('RATE_LIMIT_PER_MINUTE', 6000, env),
    widgetRateLimitPerMinute: num('WIDGET_RATE_LIMIT_PER_MINUTE', 600, env),
    authFailureRateLimitPerMinute: num('AUTH_FAILURE_RATE_LIMIT_PER_MINUTE', 60, env),
    trustProxy: trustProxy(env.TRUST_PROXY),
    redisUrl: env.REDIS_URL || undefined,
    rateLimitRedisPrefix: env.RATE_LIMIT_REDIS_PREFIX || 'delivery-api:rl:',
    adminToken: env.ADMIN_TOKEN || undefined,
    // SSRF protection on by default: loopback webhook URLs only when asked for (npm run dev, tests, benchmarks).
    allowLoopbackWebhooks: bool('ALLOW_LOOPBACK_WEBHOOKS', false, env),
    webhookScheduleMs: webhookSchedule(env.WEBHOOK_SCHEDULE_MS),
    webhookTimeoutMs: num('WEBHOOK_TIMEOUT_MS', 15_000, env),
    purgeIntervalMs: whole('PURGE_INTERVAL_MS', HOUR, 1000, env),
    purgeBatchSize: whole('PURGE_BATCH_SIZE', 1000, 1, env),
    quoteRetentionMs: whole('QUOTE_RETENTION_MS', 24 * HOUR, 0, env),
    fleetReceiptRetentionMs: whole('FLEET_RECEIPT_RETENTION_MS', 7 * 24 * HOUR, 0, env),
    webhookRetentionMs: webhookRetention(
      whole('WEBHOOK_RETENTION_MS', 30 * 24 * HOUR, 0, env),
      webhookSchedule(env.WEBHOOK_SCHEDULE_MS),
    ),
    logLevel: env.LOG_LEVEL ?? 'info',
    metricsPort: optionalPort('METRICS_PORT', env),
    // Loopback unless set: a metrics port is never reachable from outside by accident (production sets METRICS_HOST).
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    metricsToken: metricsToken(env.METRICS_TOKEN),
    workerMetricsPort: optionalPort('WORKER_METRICS_PORT', env),
    metricsStatusCacheMs: whole('METRICS_STATUS_CACHE_MS', 10_000, 0, env),
    dashboard: {
      sessionIdleMs: whole('DASHBOARD_SESSION_IDLE_MS', 2 * HOUR, 1000, env),
      sessionMaxMs: whole('DASHBOARD_SESSION_MAX_MS', 12 * HOUR, 1000, env),
      passwordLinkTtlMs: whole('DASHBOARD_PASSWORD_LINK_MS', 72 * HOUR, 60_000, env),
      secureCookies: bool(
        'DASHBOARD_SECURE_COOKIES',
        (env.PUBLIC_BASE_URL ?? '').startsWith('https:') || env.NODE_ENV === 'production',
        env,
      ),
      passwordHashConcurrency: whole('DASHBOARD_PASSWORD_HASH_CONCURRENCY', 2, 1, env),
      passwordHashQueue: whole('DASHBOARD_PASSWORD_HASH_QUEUE', 8, 0, env),
    },
  };
}
