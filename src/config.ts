// Every setting the processes read, in one place. Each comes from an environment variable with a dev default.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_WEBHOOK_SCHEDULE_MS } from '../workflows/webhooks/definitions.js';

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
export const DEFAULT_STATE_BUDGETS_MS = { pending: 2 * HOUR, assigned: 4 * HOUR, pickup_ready: 4 * HOUR, in_transit: 24 * HOUR, out_for_delivery: 8 * HOUR };

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
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0)) {
    throw new Error(`WEBHOOK_SCHEDULE_MS must be a JSON array of waits in ms like [0,5000,300000], got "${raw}"`);
  }
  return value as number[];
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
  bodyLimitBytes: number;
  rateLimitPerMinute: number;
  widgetRateLimitPerMinute: number;
  allowLoopbackWebhooks: boolean;
  /** Merchant webhook retry schedule: wait before the first attempt, then after each failed one (ms). */
  webhookScheduleMs: number[];
  /** Per-attempt request timeout of merchant webhooks. */
  webhookTimeoutMs: number;
  logLevel: string;
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
    quoteValiditySeconds: num('QUOTE_VALIDITY_SECONDS', 15 * 60, env),
    courierTimeoutMs: num('COURIER_TIMEOUT_MS', 2000, env),
    paymentWindowMs: num('PAYMENT_WINDOW_MS', 48 * 3600 * 1000, env),
    stateBudgetsMs: stateBudgets(env.STATE_BUDGETS_MS),
    dispatchMaxAttempts: num('DISPATCH_MAX_ATTEMPTS', 6, env),
    dispatchInitialIntervalMs: num('DISPATCH_INITIAL_INTERVAL_MS', 2000, env),
    slaGraceMs: num('SLA_GRACE_MS', 24 * 3600 * 1000, env),
    reconcileIntervalMs: num('RECONCILE_INTERVAL_MS', 15_000, env),
    bodyLimitBytes: num('BODY_LIMIT_BYTES', 1024 * 1024, env),
    rateLimitPerMinute: num('RATE_LIMIT_PER_MINUTE', 6000, env),
    widgetRateLimitPerMinute: num('WIDGET_RATE_LIMIT_PER_MINUTE', 600, env),
    allowLoopbackWebhooks: bool('ALLOW_LOOPBACK_WEBHOOKS', (env.NODE_ENV ?? 'development') !== 'production', env),
    webhookScheduleMs: webhookSchedule(env.WEBHOOK_SCHEDULE_MS),
    webhookTimeoutMs: num('WEBHOOK_TIMEOUT_MS', 15_000, env),
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
