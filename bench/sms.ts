// BENCH_SMS=on|off for npm run bench:lifecycle: the lifecycle with recipients' SMS (docs/recipients.md). Both give the
// destination a phone. `off`: the tenants' default in live mode, each of the four messages stored not_sent (disabled)
// in its event's transaction, none sent. `on`: SMS on for every tenant, the worker's sender submitting each message
// over SMPP to the SMSC simulator (in the benchmark's process, like the courier simulator: its CPU is not counted)
// and applying its receipts. Absent: the lifecycle as before (no phone, no message at all).
import type { Pool } from '../src/platform/db.js';
import { createSmsc } from '../simulator/smsc/server.js';
import { say, type Cleanups } from './lib.js';

const MODE = process.env.BENCH_SMS;

/** The quote and delivery body, with the recipient's phone when BENCH_SMS is set. */
export function withSmsPhone<T extends { destination: Record<string, unknown> }>(body: T): T {
  if (!MODE) return body;
  return { ...body, destination: { ...body.destination, contact: { name: 'Ana', phone: '+244923000000' } } };
}

/** Before the production stack starts (it takes SMPP_URL from this process's environment): the SMSC and the settings. */
export async function setUpSms(cleanups: Cleanups, pool: Pool): Promise<() => string> {
  if (MODE !== 'on') return () => (MODE === 'off' ? 'SMS off (BENCH_SMS=off: stored not_sent, none sent).' : '');
  const smsc = await createSmsc({ smppPort: 0, httpPort: 0 });
  cleanups.push(() => smsc.close());
  process.env.SMPP_URL = smsc.smppUrl;
  process.env.SMS_PROVIDER = 'smpp';
  await pool.query(
    `INSERT INTO notification_settings (tenant_id, livemode, sms_enabled)
     SELECT id, mode, true FROM tenants, (VALUES (true), (false)) AS m(mode)
     ON CONFLICT (tenant_id, livemode) DO UPDATE SET sms_enabled = true`,
  );
  say(`SMS on (BENCH_SMS=on): the SMSC simulator at ${smsc.smppUrl}`);
  return () => `SMS on (BENCH_SMS=on): ${smsc.messages().length} messages reached the SMSC simulator.`;
}
