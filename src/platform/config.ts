// Every setting the processes read, in one place: one zod schema of the environment variables (each with its
// default and description; the README's configuration table is generated from it by `npm run docs:config`), mapped
// to the typed Config the code uses. loadConfig reports every bad variable at once, with its name and why.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_WEBHOOK_SCHEDULE_MS } from '../../shared/webhooks/definitions.js';

/** The project folder: the nearest folder above this module holding package.json (source or bundled build). */
export const ROOT_DIR = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();

const HOUR = 3600 * 1000;
export const DEFAULT_STATE_BUDGETS_MS = {
  pending: 2 * HOUR,
  assigned: 4 * HOUR,
  pickup_ready: 4 * HOUR,
  in_transit: 24 * HOUR,
  out_for_delivery: 8 * HOUR,
};
type BudgetedState = keyof typeof DEFAULT_STATE_BUDGETS_MS;

// The kinds of variable. An empty variable counts as unset everywhere (the default applies).
const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
/** A switch: 1/true/yes/on (any case) is on, anything else off. */
const flag = () => z.string().transform((raw) => TRUE_WORDS.includes(raw.toLowerCase()));
const number = (fallback: number) => z.coerce.number({ error: 'must be a number' }).default(fallback);
/** A whole number of at least `min`: intervals, batch sizes, retention periods, ports. */
const wholeNumber = (min: number) => {
  const error = `must be a whole number of at least ${min}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error });
};
const whole = (fallback: number, min: number) => wholeNumber(min).default(fallback);
const port = () => wholeNumber(0).max(65535, { error: 'must be a TCP port' }).optional();
const optionalText = () => z.string().optional();

/** JSON text holding a value `schema` accepts; `example` shows the expected shape in the error. */
const json = <T extends z.ZodType>(schema: T, example: string) =>
  z.string().transform((raw, ctx): z.output<T> => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    ctx.addIssue({ code: 'custom', message: `must be JSON like ${example}` });
    return z.NEVER;
  });

/**
 * TRUST_PROXY: off, a hop count (trusted only from private addresses: src/http/trust-proxy.ts), or proxy-addr's
 * comma-separated addresses / CIDRs. "true" (trust every hop) is refused: any client could then choose its address.
 */
const trustProxy = z
  .string()
  .optional()
  .transform((raw, ctx): false | number | string[] => {
    const value = raw?.trim() ?? '';
    if (value === '' || value.toLowerCase() === 'false') return false;
    if (/^\d+$/.test(value)) return Number(value) || false;
    if (value.toLowerCase() === 'true') {
      ctx.addIssue({
        code: 'custom',
        message: 'true would let any client choose its address; give the number of proxy hops or their addresses',
      });
      return z.NEVER;
    }
    return value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
  });

/** The environment variables the API and the worker read; `description` feeds the README's table. */
export const envSchema = z
  .object({
    PORT: number(3000).describe('API listen port'),
    HOST: z.string().default('0.0.0.0').describe('API listen address'),
    PUBLIC_BASE_URL: optionalText()
      .meta({ defaultText: 'http://localhost:$PORT' })
      .describe('public address: error `type` URIs and `tracking_url` are built from it'),
    DATABASE_URL: z
      .string()
      .default('postgres://postgres@127.0.0.1:5432/delivery_api')
      .describe('Postgres (the dev command and tests pick a server as described above when unset)'),
    API_DATABASE_POOL_SIZE: whole(8, 1).describe(
      "Postgres connections of each API process: a request holds one for a statement or a short transaction, and each connection's buffers count in the process's memory ([operations](docs/operations.md))",
    ),
    WORKER_DATABASE_POOL_SIZE: whole(20, 1).describe(
      "Postgres connections of each worker process (activities, the outbox's senders, the reconciler)",
    ),
    DATABASE_PREPARED_STATEMENTS: flag()
      .default(true)
      .describe(
        'prepare each parameterized statement once per connection (Postgres plans it once, not at every run); `false` behind a pooler in transaction mode that cannot keep prepared statements ([operations](docs/operations.md))',
      ),
    TEMPORAL_ADDRESS: z
      .string()
      .default('127.0.0.1:7233')
      .describe('Temporal frontend; when set, `npm run dev` starts no Temporal server of its own'),
    TEMPORAL_NAMESPACE: z.string().default('default').describe('the Temporal namespace workflows run in'),
    TEMPORAL_TASK_QUEUE: z.string().default('deliveries').describe('the task queue workflows and activities run on'),
    TEMPORAL_TLS: flag()
      .optional()
      .meta({ defaultText: 'auto' })
      .describe(
        '`true`/`false` forces TLS towards Temporal on/off (auto: on when any `TEMPORAL_TLS_*` or `TEMPORAL_API_KEY` is set) ([production](docs/operations.md#production-least-privilege))',
      ),
    TEMPORAL_TLS_CA: optionalText().describe("PEM file: the Temporal server's CA (else the system CAs); turns TLS on"),
    TEMPORAL_TLS_CERT: optionalText().describe(
      'PEM file: the client certificate for mTLS (with `TEMPORAL_TLS_KEY`; both or neither); turns TLS on',
    ),
    TEMPORAL_TLS_KEY: optionalText().describe('PEM file: the client key for mTLS (with `TEMPORAL_TLS_CERT`)'),
    TEMPORAL_TLS_SERVER_NAME: optionalText().describe('TLS server name to verify'),
    TEMPORAL_API_KEY: optionalText().describe('API key towards Temporal Cloud; turns TLS on'),
    QUOTE_VALIDITY_SECONDS: number(15 * 60).describe('quote lifetime (an upstream `valid_for_seconds` shortens it)'),
    COURIER_TIMEOUT_MS: number(2000).describe('default per-call timeout towards `http` couriers'),
    PAYMENT_WINDOW_MS: number(48 * HOUR).describe('`awaiting_payment` deliveries are cancelled after this'),
    STATE_BUDGETS_MS: json(z.record(z.string(), z.number().nonnegative()), '{"pending":7200000}')
      .optional()
      .meta({ defaultText: JSON.stringify(DEFAULT_STATE_BUDGETS_MS) })
      .describe('time a state may last without progress before `stalled` (JSON; states left out keep their default)'),
    DISPATCH_MAX_ATTEMPTS: number(6).describe('courier booking attempts'),
    DISPATCH_INITIAL_INTERVAL_MS: number(2000).describe('wait before the first courier booking retry'),
    SLA_GRACE_MS: number(24 * HOUR).describe(
      'added to the quote ETA for `sla_deadline_at` when no delivery time is scheduled',
    ),
    RECONCILE_INTERVAL_MS: number(15_000).describe(
      'how often the worker restarts deliveries whose workflow is missing',
    ),
    WORKFLOW_HISTORY_LIMIT: whole(10_000, 100).describe(
      'a delivery workflow continues as new (same id, state carried over) once its history has this many events, or earlier when Temporal suggests it',
    ),
    BOOKING_RELEASE_RETRY_MS: number(HOUR).describe(
      'how long a courier booking not confirmed cancelled is retried in the background before `delivery.booking_release_failed`',
    ),
    ASSIGN_TIMEOUT_UNIT_MS: number(60_000).describe(
      "the length of one minute of a dispatch policy's `assign_timeout_minutes` ([automatic failover](docs/deliveries.md#automatic-failover)); only tests shorten it",
    ),
    SIMULATED_COURIER_STEP_MS: whole(10_000, 0).describe(
      'test mode: the pause before each fleet event of the test courier that delivers by itself (`test-auto`: delivered within a minute); [test mode](docs/test-mode.md)',
    ),
    BODY_LIMIT_BYTES: number(1024 * 1024).describe('largest request body (413 above)'),
    RATE_LIMIT_PER_MINUTE: number(6000).describe(
      'requests per authenticated key (unauthenticated /v1 routes and /v1 paths that match no route: per client address)',
    ),
    WIDGET_RATE_LIMIT_PER_MINUTE: number(600).describe(
      'widget requests per key and client address; CORS preflights: this figure per client address',
    ),
    AUTH_FAILURE_RATE_LIMIT_PER_MINUTE: number(60).describe(
      'failed authentications (401) per client address; past it the address gets 429 on every /v1 route for the rest of the minute',
    ),
    TRUST_PROXY: trustProxy
      .meta({ defaultText: 'off' })
      .describe(
        "who may set the client address through `X-Forwarded-For`: a hop count (`1`: the load balancer in front; trusted only when it connects from a private address) or comma-separated proxy addresses/CIDRs (`10.0.0.0/8,loopback`). Off: the socket's address. `true` is refused",
      ),
    REDIS_URL: optionalText().describe(
      "Redis for the rate-limit counters, shared by every API replica (unset: per process, in memory). While Redis is unreachable (or a call to it fails) each request is counted in the process's memory instead, so the limits hold per replica; a warning is logged once per outage",
    ),
    RATE_LIMIT_REDIS_PREFIX: z.string().default('delivery-api:rl:').describe('prefix of the rate-limit keys in Redis'),
    ADMIN_TOKEN: optionalText().describe(
      'operator token of `POST /v1/diagnostics/round_trip` (`Authorization: Bearer <token>`); unset: the route does not exist (404)',
    ),
    // SSRF protection on by default: loopback webhook URLs only when asked for (npm run dev, tests, benchmarks).
    ALLOW_LOOPBACK_WEBHOOKS: flag()
      .default(false)
      .describe(
        'allow webhook URLs on loopback addresses (127/8, `::1`, `localhost`) only; every other private or special-use address is always refused ([SSRF](docs/webhooks.md)). `npm run dev`, the tests and the benchmarks set it; production must not',
      ),
    WEBHOOK_SCHEDULE_MS: json(z.array(z.number().nonnegative()).nonempty(), '[0,5000,300000]')
      .default([...DEFAULT_WEBHOOK_SCHEDULE_MS])
      .meta({ defaultText: 'JSON; `[0,5000,300000,...]`: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h' })
      .describe(
        'merchant webhook retries: the wait before the first attempt, then after each failed one ([webhooks](docs/webhooks.md)); a delivery keeps the schedule in effect when its workflow started',
      ),
    WEBHOOK_TIMEOUT_MS: number(15_000).describe('per-attempt timeout of a merchant webhook request'),
    PURGE_INTERVAL_MS: whole(HOUR, 1000).describe(
      'how often the maintenance purge (Temporal Schedule `maintenance-purge`) runs ([retention](docs/operations.md#retention-nothing-grows-forever))',
    ),
    COD_OVERDUE_INTERVAL_MS: whole(5 * 60_000, 1000).describe(
      'how often cash-on-delivery cash past its remittance terms raises `cod.overdue` (Temporal Schedule `cod-overdue`, [cash on delivery](docs/cash-on-delivery.md#overdue))',
    ),
    PURGE_BATCH_SIZE: whole(1000, 1).describe('rows the maintenance purge deletes per statement'),
    QUOTE_RETENTION_MS: whole(24 * HOUR, 0).describe('unused quotes are deleted this long after their `valid_until`'),
    FLEET_RECEIPT_RETENTION_MS: whole(7 * 24 * HOUR, 0).describe(
      'fleet webhook-ids seen (duplicate detection) are forgotten after this',
    ),
    // Webhook messages must outlive their retry schedule, or one could be purged while it is still being retried.
    WEBHOOK_RETENTION_MS: whole(30 * 24 * HOUR, 0).describe(
      'merchant webhook messages and attempt log are deleted after this (at least the retry schedule)',
    ),
    SMS_PROVIDER: z
      .enum(['smpp', 'log', 'none'], { error: 'must be smpp, log or none' })
      .optional()
      .meta({ defaultText: '`smpp` when `SMPP_URL` is set, else `log`' })
      .describe(
        "how recipients' SMS leave: `smpp` to the SMSC at `SMPP_URL`, `log` writes each message to the log and reports it delivered, `none` sends nothing ([SMS over SMPP](docs/recipients.md#sms-over-smpp))",
      ),
    SMPP_URL: optionalText()
      .meta({ defaultText: 'unset; `npm run dev`: its SMSC simulator' })
      .describe(
        'the SMSC: `smpp://system_id:password@host:port` (port 2775 when left out); one bind_transceiver session per worker',
      ),
    SMS_SENDER_ID: z
      .string()
      .regex(/^([A-Za-z0-9 .&_-]{1,11}|\+?\d{3,15})$/, { error: 'must be up to 11 letters and digits, or a number' })
      .default('Entregas')
      .describe("the SMS sender id when a tenant's notification settings name none"),
    SMPP_WINDOW: whole(10, 1).describe(
      "submits outstanding at once towards the SMSC (without their answer): the SMSC's window",
    ),
    LOG_LEVEL: z
      .string()
      .default('info')
      .meta({ defaultText: 'info; `npm run dev` uses warn' })
      .describe(
        "pino log level (the API's and the worker's JSON lines, secrets redacted: [logs](docs/operations.md#logs))",
      ),
    METRICS_PORT: port()
      .meta({ defaultText: 'unset; `npm run dev`: 9464' })
      .describe(
        "the API's Prometheus metrics (`GET /metrics`) on this second listener, never on the API port; unset: none ([metrics](docs/operations.md#metrics))",
      ),
    // Loopback unless set: a metrics port is never reachable from outside by accident (production sets METRICS_HOST).
    METRICS_HOST: z
      .string()
      .default('127.0.0.1')
      .describe(
        "the address both metrics listeners (the API's and the worker's) bind: loopback unless set, whatever `HOST` says; production sets it where Prometheus scrapes from another machine or container (docker-compose.yml: `0.0.0.0`, on the compose networks only)",
      ),
    // A guessable token would publish the service's figures.
    METRICS_TOKEN: z
      .string()
      .min(32, { error: 'must be at least 32 characters (e.g. `openssl rand -hex 32`)' })
      .optional()
      .describe(
        'only where a second port cannot be reached: the API port serves `GET /metrics` to `Authorization: Bearer <token>` (32+ characters)',
      ),
    WORKER_METRICS_PORT: port()
      .meta({ defaultText: 'unset; `npm run dev`: 9465' })
      .describe("the worker's metrics, the Temporal SDK's included"),
    METRICS_STATUS_CACHE_MS: whole(10_000, 0).describe("how long the worker's deliveries-by-status count is reused"),
    WORKER_MAX_CACHED_WORKFLOWS: wholeNumber(0)
      .optional()
      .meta({ defaultText: 'sized from the machine' })
      .describe(
        "workflows the worker keeps in memory between their tasks (0: none); unset, sized from the machine's memory and the worker's heap limit ([operations](docs/operations.md#production-build-and-memory))",
      ),
    WORKFLOW_STACK_TRACES: flag()
      .default(false)
      .describe(
        "the worker runs the workflow bundle with stack traces: the Temporal UI's stack trace query and the stack of an error in workflow code, at about a third more CPU for workflow code ([operations](docs/operations.md#workflow-stack-traces))",
      ),
    DASHBOARD_SESSION_IDLE_MS: whole(2 * HOUR, 1000).describe(
      'a dashboard session ends after this long without a request ([dashboard](docs/dashboard.md#sessions-and-security))',
    ),
    DASHBOARD_SESSION_MAX_MS: whole(12 * HOUR, 1000).describe('a dashboard session ends this long after sign-in'),
    DASHBOARD_PASSWORD_LINK_MS: whole(72 * HOUR, 60_000).describe('how long a set-password link works'),
    DASHBOARD_SECURE_COOKIES: flag()
      .optional()
      .meta({ defaultText: 'on when `PUBLIC_BASE_URL` is https or `NODE_ENV=production`' })
      .describe('the session cookie is `Secure` and `__Host-` prefixed'),
    DASHBOARD_PASSWORD_HASH_CONCURRENCY: whole(2, 1).describe(
      'dashboard password hashes (scrypt, 128 MiB each) computed at once per API process ([dashboard](docs/dashboard.md#sessions-and-security))',
    ),
    DASHBOARD_PASSWORD_HASH_QUEUE: whole(8, 0).describe(
      'dashboard password hashes waiting for a turn; beyond, sign-in and set-password answer `503 password_check_busy` with `Retry-After`',
    ),
    NODE_ENV: optionalText().describe('`production` turns `DASHBOARD_SECURE_COOKIES` on by default'),
  })
  .superRefine((env, ctx) => {
    if (env.SMS_PROVIDER === 'smpp' && !env.SMPP_URL)
      ctx.addIssue({ code: 'custom', path: ['SMS_PROVIDER'], message: 'smpp needs SMPP_URL' });
    if (env.SMPP_URL && !/^smpp:\/\/[^@/]+@[^/:]+(:\d+)?\/?$/.test(env.SMPP_URL))
      ctx.addIssue({
        code: 'custom',
        path: ['SMPP_URL'],
        message: 'must look like smpp://system_id:password@host:port',
      });
    const scheduleMs = env.WEBHOOK_SCHEDULE_MS.reduce((sum, wait) => sum + wait, 0);
    if (env.WEBHOOK_RETENTION_MS < scheduleMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_RETENTION_MS'],
        message: `must be at least the whole webhook retry schedule (${scheduleMs} ms)`,
      });
    }
  });

/** The variables as the code uses them: grouped and named for their use. */
function toConfig(env: z.output<typeof envSchema>) {
  const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`;
  return {
    port: env.PORT,
    host: env.HOST,
    /** Public address of this API; error `type` URIs and `tracking_url` are built from it. */
    baseUrl: publicBaseUrl.replace(/\/$/, ''),
    databaseUrl: env.DATABASE_URL,
    /** Connections of the API's pool and of the worker's. */
    apiDatabasePoolSize: env.API_DATABASE_POOL_SIZE,
    workerDatabasePoolSize: env.WORKER_DATABASE_POOL_SIZE,
    /** Parameterized statements prepared once per connection (src/platform/db.ts). */
    databasePreparedStatements: env.DATABASE_PREPARED_STATEMENTS,
    temporalAddress: env.TEMPORAL_ADDRESS,
    temporalNamespace: env.TEMPORAL_NAMESPACE,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    /** TLS / mTLS towards a real Temporal cluster or Temporal Cloud (src/platform/temporal.ts); `enabled` undefined: auto. */
    temporalTls: {
      enabled: env.TEMPORAL_TLS,
      certPath: env.TEMPORAL_TLS_CERT,
      keyPath: env.TEMPORAL_TLS_KEY,
      caPath: env.TEMPORAL_TLS_CA,
      serverName: env.TEMPORAL_TLS_SERVER_NAME,
    },
    temporalApiKey: env.TEMPORAL_API_KEY,
    quoteValiditySeconds: env.QUOTE_VALIDITY_SECONDS,
    courierTimeoutMs: env.COURIER_TIMEOUT_MS,
    paymentWindowMs: env.PAYMENT_WINDOW_MS,
    stateBudgetsMs: { ...DEFAULT_STATE_BUDGETS_MS, ...env.STATE_BUDGETS_MS } as Partial<Record<BudgetedState, number>>,
    dispatchMaxAttempts: env.DISPATCH_MAX_ATTEMPTS,
    dispatchInitialIntervalMs: env.DISPATCH_INITIAL_INTERVAL_MS,
    slaGraceMs: env.SLA_GRACE_MS,
    reconcileIntervalMs: env.RECONCILE_INTERVAL_MS,
    workflowHistoryLimit: env.WORKFLOW_HISTORY_LIMIT,
    bookingReleaseRetryMs: env.BOOKING_RELEASE_RETRY_MS,
    assignTimeoutUnitMs: env.ASSIGN_TIMEOUT_UNIT_MS,
    simulatedCourierStepMs: env.SIMULATED_COURIER_STEP_MS,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    widgetRateLimitPerMinute: env.WIDGET_RATE_LIMIT_PER_MINUTE,
    authFailureRateLimitPerMinute: env.AUTH_FAILURE_RATE_LIMIT_PER_MINUTE,
    trustProxy: env.TRUST_PROXY,
    redisUrl: env.REDIS_URL,
    rateLimitRedisPrefix: env.RATE_LIMIT_REDIS_PREFIX,
    adminToken: env.ADMIN_TOKEN,
    allowLoopbackWebhooks: env.ALLOW_LOOPBACK_WEBHOOKS,
    webhookScheduleMs: env.WEBHOOK_SCHEDULE_MS as number[],
    webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
    purgeIntervalMs: env.PURGE_INTERVAL_MS,
    codOverdueIntervalMs: env.COD_OVERDUE_INTERVAL_MS,
    purgeBatchSize: env.PURGE_BATCH_SIZE,
    quoteRetentionMs: env.QUOTE_RETENTION_MS,
    fleetReceiptRetentionMs: env.FLEET_RECEIPT_RETENTION_MS,
    webhookRetentionMs: env.WEBHOOK_RETENTION_MS,
    /** Recipients' SMS (docs/recipients.md): the provider, the SMSC, the default sender id, the SMSC's window. */
    sms: {
      provider: (env.SMS_PROVIDER ?? (env.SMPP_URL ? 'smpp' : 'log')) as 'smpp' | 'log' | 'none',
      smppUrl: env.SMPP_URL,
      senderId: env.SMS_SENDER_ID,
      window: env.SMPP_WINDOW,
    },
    logLevel: env.LOG_LEVEL,
    metricsPort: env.METRICS_PORT,
    metricsHost: env.METRICS_HOST,
    metricsToken: env.METRICS_TOKEN,
    workerMetricsPort: env.WORKER_METRICS_PORT,
    metricsStatusCacheMs: env.METRICS_STATUS_CACHE_MS,
    workerMaxCachedWorkflows: env.WORKER_MAX_CACHED_WORKFLOWS,
    workflowStackTraces: env.WORKFLOW_STACK_TRACES,
    /** The merchant dashboard (docs/dashboard.md): sessions, set-password links, the cookie, password hashing. */
    dashboard: {
      sessionIdleMs: env.DASHBOARD_SESSION_IDLE_MS,
      sessionMaxMs: env.DASHBOARD_SESSION_MAX_MS,
      passwordLinkTtlMs: env.DASHBOARD_PASSWORD_LINK_MS,
      secureCookies:
        env.DASHBOARD_SECURE_COOKIES ?? (publicBaseUrl.startsWith('https:') || env.NODE_ENV === 'production'),
      passwordHashConcurrency: env.DASHBOARD_PASSWORD_HASH_CONCURRENCY,
      passwordHashQueue: env.DASHBOARD_PASSWORD_HASH_QUEUE,
    },
  };
}

export type Config = ReturnType<typeof toConfig>;

/** Variables whose value an error must not repeat (tokens, keys, URLs that may hold a password). */
const SECRET = /TOKEN|KEY|_URL$/;

/** The configuration from `env`; throws one error naming every bad variable and why. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Only the schema's variables, empty ones as unset.
  const known = Object.fromEntries(
    Object.keys(envSchema.shape)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  );
  const parsed = envSchema.safeParse(known);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      const shown = name in known && !SECRET.test(name) ? ` (got "${known[name]}")` : '';
      return `  ${name}: ${issue.message}${shown}`;
    });
    throw new Error(`Invalid configuration (${problems.length}):\n${problems.join('\n')}`);
  }
  return toConfig(parsed.data);
}
