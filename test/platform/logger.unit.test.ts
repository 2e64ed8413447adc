// The logger (src/platform/observability/logger.ts) censors every field that can hold a secret, at any depth, wherever code
// logs it, and withholds a line it cannot read. Written to an in-memory sink: no process, no stack.
import { describe, expect, it } from 'vitest';
import { censorLine, createLogger } from '../../src/platform/observability/logger.js';

describe('logs', () => {
  it('censor the fields that hold secrets wherever code logs them (censorLine)', () => {
    const out: string[] = [];
    const logger = createLogger('info', 'check', { write: (line: string) => void out.push(line) });
    logger.info(
      {
        req: { headers: { authorization: 'Bearer sk_live_AAAA', cookie: 'session=BBBB' } },
        endpoint: { url: 'https://shop.test/hooks', secret: 'whsec_CCCC', previous_secret: 'whsec_DDDD' },
        event: { payload: { pin: '4711', courier: { fleet_secret: 'whsec_EEEE' } } },
        delivery: { delivery_pin: '0815', client_secret: 'cs_FFFF' },
        config: { adminToken: 'GGGG', metricsToken: 'HHHH', temporalApiKey: 'IIII' },
        dashboard: {
          req: { headers: { cookie: 'dashboard_session=JJJJ', 'x-csrf-token': 'KKKK' } },
          res: { headers: { 'set-cookie': 'dashboard_session=LLLL; Path=/; HttpOnly' } },
        },
        session: {
          csrf_token: 'MMMM',
          csrfToken: 'NNNN',
          sessionToken: 'OOOO',
          cookies: { dashboard_session: 'PPPP', '__Host-dashboard_session': 'QQQQ' },
        },
        user: {
          email: 'ana@loja.test',
          password: 'RRRR',
          password_hash: 'SSSS',
          set_password_url: 'https://api.test/dashboard/set-password#token=TTTT',
        },
        link: { token: 'UUUU' },
      },
      'everything a careless line could hold',
    );
    const line = out.join('');
    const censored = ['AAAA', 'BBBB', 'CCCC', 'DDDD', '4711', 'EEEE', '0815', 'FFFF', 'GGGG', 'HHHH', 'IIII'];
    censored.push('JJJJ', 'KKKK', 'LLLL', 'MMMM', 'NNNN', 'OOOO', 'PPPP', 'QQQQ', 'RRRR', 'SSSS', 'TTTT', 'UUUU');
    for (const secret of censored) expect(line, secret).not.toContain(secret);
    expect(JSON.parse(line)).toMatchObject({ user: { email: 'ana@loja.test' }, session: { csrf_token: '[redacted]' } });
    expect(JSON.parse(line)).toMatchObject({
      endpoint: { url: 'https://shop.test/hooks', secret: '[redacted]' },
      event: { payload: { pin: '[redacted]' } },
    });
  });

  it('censor at any depth, in bindings and arrays too; pass a line with no secret field through as it is; withhold one that cannot be read', () => {
    const out: string[] = [];
    const logger = createLogger('info', 'check', { write: (line: string) => void out.push(line) });
    logger
      .child({ tenant: { secret_key: 'sk_live_VVVV' } })
      .warn({ a: { b: { c: { d: { e: { token: 'WWWW' } } } } }, list: [{ password: 'XXXX' }] }, 'deep');
    logger.info({ delivery: { id: 'd1', status: 'created' } }, 'nothing secret');
    expect(out).toHaveLength(2);
    for (const secret of ['VVVV', 'WWWW', 'XXXX']) expect(out[0], secret).not.toContain(secret);
    expect(JSON.parse(out[0])).toMatchObject({
      tenant: { secret_key: '[redacted]' },
      a: { b: { c: { d: { e: { token: '[redacted]' } } } } },
      list: [{ password: '[redacted]' }],
    });
    expect(JSON.parse(out[1])).toMatchObject({ delivery: { id: 'd1', status: 'created' }, msg: 'nothing secret' });
    const plain = '{"level":30,"msg":"no secret here"}\n';
    expect(censorLine(plain)).toBe(plain);
    const broken = '{"level":30,"token":"YYYY", not json';
    expect(censorLine(broken)).not.toContain('YYYY');
    expect(JSON.parse(censorLine(broken))).toMatchObject({ level: 50, msg: expect.stringContaining('withheld') });
  });
});
