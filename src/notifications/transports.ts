// The SMS transport SMS_PROVIDER names (docs/recipients.md "SMS over SMPP"): the SMSC over SMPP, the log, or none.
import type { Logger } from 'pino';
import type { Config } from '../platform/config.js';
import { LogTransport } from './log-transport.js';
import { SmppTransport } from './smpp/transport.js';
import type { SmsTransport } from './transport.js';

/** The configured transport, or null for SMS_PROVIDER=none (nothing is sent; the outbox records why). */
export function createSmsTransport(config: Pick<Config, 'sms'>, logger: Logger): SmsTransport | null {
  const { provider, smppUrl, window } = config.sms;
  if (provider === 'none') return null;
  if (provider === 'log') return new LogTransport(logger.child({ component: 'sms' }));
  return new SmppTransport({ url: smppUrl!, window, logger: logger.child({ component: 'smpp' }) });
}
