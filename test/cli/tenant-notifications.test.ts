// `admin tenant notifications` as a real subprocess against the run's database, checked through the real API: shows
// the defaults of each mode, changes the fields named, "" as the sender goes back to the service's, and a bad value
// is a usage error (exit code 2) that changes nothing.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { startStack, type Stack } from '../helpers/stack.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function admin(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT_DIR, 'src', 'cli', 'index.ts'), ...args],
      {
        cwd: ROOT_DIR,
        env: { ...process.env, DATABASE_URL: inject('databaseUrl'), TEMPORAL_ADDRESS: inject('temporalAddress') },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end('');
  });
}

async function adminJson(...args: string[]): Promise<any> {
  const run = await admin(...args, '--json');
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

describe('admin tenant notifications', () => {
  it('shows and changes the SMS settings of one mode, as the API does', async () => {
    const t = await stack.tenant();
    const shown = await adminJson('tenant', 'notifications', '--tenant', t.tenant_id);
    expect(shown).toMatchObject({ tenant_id: t.tenant_id, livemode: true, sms_enabled: false, language: 'pt-AO' });
    const test = await adminJson('tenant', 'notifications', '--tenant', t.tenant_id, '--mode', 'test');
    expect(test).toMatchObject({ livemode: false, sms_enabled: true, sender_id: null });

    const changed = await adminJson(
      'tenant',
      'notifications',
      '--tenant',
      t.tenant_id,
      '--sms',
      'on',
      '--language',
      'en',
      '--sender-id',
      'Loja CLI',
    );
    expect(changed).toMatchObject({ sms_enabled: true, language: 'en', sender_id: 'Loja CLI' });
    const api = await stack.request('GET', '/v1/settings/notifications', { key: t.secret_key });
    expect(api.body).toEqual({ ...changed, tenant_id: undefined, effective_sender_id: 'Loja CLI' });
    // The test mode's settings did not move.
    expect((await stack.request('GET', '/v1/settings/notifications', { key: t.test_secret_key })).body).toMatchObject({
      sms_enabled: true,
      language: 'pt-AO',
    });

    const human = await admin('tenant', 'notifications', '--tenant', t.tenant_id, '--sender-id', '');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/sender id: .+ \(the service's\)/);
    expect(human.stdout).toContain('language:  en');

    for (const args of [
      ['--sender-id', 'Loja-Kianda'],
      ['--sms', 'maybe'],
      ['--language', 'pt'],
      ['--mode', 'demo'],
    ]) {
      const bad = await admin('tenant', 'notifications', '--tenant', t.tenant_id, ...args);
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.stderr).toMatch(/^error: /);
    }
    expect((await stack.request('GET', '/v1/settings/notifications', { key: t.secret_key })).body).toMatchObject({
      sms_enabled: true,
      sender_id: null,
    });
  }, 120_000);
});
