// The configuration schema (src/platform/config.ts) without any server: defaults, coercion, every bad variable reported at
// once, and the README's table generated from it (`npm run docs:config` rewrites it when this fails).
import { describe, expect, it } from 'vitest';
import { DEFAULT_STATE_BUDGETS_MS, loadConfig } from '../../src/platform/config.js';
import { readReadme, withConfigTable } from '../../scripts/lib/config-table.js';

describe('loadConfig', () => {
  it('gives the defaults with no variable set (empty ones count as unset)', () => {
    const config = loadConfig({ PORT: '', REDIS_URL: '' });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      baseUrl: 'http://localhost:3000',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/delivery_api',
      taskQueue: 'deliveries',
      temporalTls: { enabled: undefined, certPath: undefined },
      quoteValiditySeconds: 900,
      stateBudgetsMs: DEFAULT_STATE_BUDGETS_MS,
      trustProxy: false,
      redisUrl: undefined,
      allowLoopbackWebhooks: false,
      metricsHost: '127.0.0.1',
      metricsPort: undefined,
      dashboard: { sessionIdleMs: 2 * 3600_000, secureCookies: false, passwordHashQueue: 8 },
    });
    expect(config.webhookScheduleMs[0]).toBe(0);
  });

  it('coerces numbers, switches, JSON and lists, and derives what depends on other variables', () => {
    const config = loadConfig({
      PORT: '4000',
      PUBLIC_BASE_URL: 'https://api.example.ao/',
      TEMPORAL_TLS: 'Yes',
      ALLOW_LOOPBACK_WEBHOOKS: 'off',
      STATE_BUDGETS_MS: '{"pending":5000}',
      WEBHOOK_SCHEDULE_MS: '[0,10]',
      TRUST_PROXY: 'loopback, 10.0.0.0/8',
      METRICS_PORT: '0',
    });
    expect(config.port).toBe(4000);
    expect(config.baseUrl).toBe('https://api.example.ao');
    expect(config.temporalTls.enabled).toBe(true);
    expect(config.allowLoopbackWebhooks).toBe(false);
    expect(config.stateBudgetsMs).toEqual({ ...DEFAULT_STATE_BUDGETS_MS, pending: 5000 });
    expect(config.webhookScheduleMs).toEqual([0, 10]);
    expect(config.trustProxy).toEqual(['loopback', '10.0.0.0/8']);
    expect(config.metricsPort).toBe(0);
    expect(config.dashboard.secureCookies).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ NODE_ENV: 'production' }).dashboard.secureCookies).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', DASHBOARD_SECURE_COOKIES: '0' }).dashboard.secureCookies).toBe(false);
  });

  it('reports every bad variable at once, each with its name and why', () => {
    let message = '';
    try {
      loadConfig({
        PORT: 'eighty',
        WORKFLOW_HISTORY_LIMIT: '5',
        TRUST_PROXY: 'true',
        WEBHOOK_SCHEDULE_MS: '[]',
        METRICS_PORT: '70000',
        METRICS_TOKEN: 'short-secret',
        STATE_BUDGETS_MS: 'not json',
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('Invalid configuration (7)');
    expect(message).toContain('PORT: must be a number (got "eighty")');
    expect(message).toContain('WORKFLOW_HISTORY_LIMIT: must be a whole number of at least 100 (got "5")');
    expect(message).toMatch(/TRUST_PROXY: true would let any client choose its address/);
    expect(message).toContain('WEBHOOK_SCHEDULE_MS: must be JSON like [0,5000,300000]');
    expect(message).toContain('METRICS_PORT: must be a TCP port');
    expect(message).toContain('METRICS_TOKEN: must be at least 32 characters');
    expect(message).toContain('STATE_BUDGETS_MS: must be JSON like {"pending":7200000}');
    // A secret is named, never repeated.
    expect(message).not.toContain('short-secret');
  });

  it('keeps webhook messages at least as long as their retry schedule', () => {
    expect(() => loadConfig({ WEBHOOK_RETENTION_MS: '1000' })).toThrow(
      /WEBHOOK_RETENTION_MS: must be at least the whole webhook retry schedule/,
    );
    expect(loadConfig({ WEBHOOK_SCHEDULE_MS: '[0,500]', WEBHOOK_RETENTION_MS: '1000' }).webhookRetentionMs).toBe(1000);
  });
});

describe('the README configuration table', () => {
  it('is the one generated from the schema (run `npm run docs:config` when this fails)', () => {
    const readme = readReadme();
    expect(readme).toBe(withConfigTable(readme));
  });
});
