// `admin tenant notifications`: the SMS to recipients of one tenant and mode (docs/recipients.md "Settings"), the same
// service as GET/PUT /v1/settings/notifications; no option shows them, options change the fields they name.
import type { Command } from 'commander';
import { NotificationSettingsChange } from '../../notifications/schemas.js';
import { changeNotificationSettings, notificationSettingsOf } from '../../notifications/settings.js';
import { tenantExists } from '../../tenants/repository.js';
import { uuid, UsageError, type CliContext } from '../context.js';

interface Options {
  tenant: string;
  mode: string;
  sms?: string;
  language?: string;
  senderId?: string;
  json?: boolean;
}

/** The change the options ask for, checked as the API checks a PUT body. */
function changeOf(opts: Options): NotificationSettingsChange {
  const change: Record<string, unknown> = {};
  if (opts.sms !== undefined) {
    if (!['on', 'off'].includes(opts.sms)) throw new UsageError('--sms takes on or off.');
    change.sms_enabled = opts.sms === 'on';
  }
  if (opts.language !== undefined) change.language = opts.language;
  if (opts.senderId !== undefined) change.sender_id = opts.senderId.trim() || null;
  const checked = NotificationSettingsChange.safeParse(change);
  if (!checked.success)
    throw new UsageError(checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return checked.data;
}

export function notificationsCommand(tenant: Command, ctx: CliContext): void {
  tenant
    .command('notifications')
    .description('SMS to recipients (docs/recipients.md): on or off, language, sender id; options change them')
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .option('--mode <live|test>', 'the mode whose settings to show or change (each mode has its own)', 'live')
    .option('--sms <on|off>', 'send SMS to recipients (default: off in live mode, on in test mode)')
    .option('--language <pt-AO|en>', 'the language of the messages')
    .option('--sender-id <id>', '1-11 letters (A-Z), digits and spaces, or a number; "": the service\'s sender')
    .option('--json', 'print JSON')
    .action(async (opts: Options) => {
      const pool = ctx.getPool();
      if (!(await tenantExists(pool, opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      if (!['live', 'test'].includes(opts.mode)) throw new UsageError('--mode takes live or test.');
      const scope = { tenantId: opts.tenant, livemode: opts.mode === 'live' };
      const change = changeOf(opts);
      const settings = Object.keys(change).length
        ? await changeNotificationSettings(pool, ctx.getConfig(), scope, change)
        : await notificationSettingsOf(pool, ctx.getConfig(), scope);
      ctx.print(
        Boolean(opts.json),
        { tenant_id: opts.tenant, ...settings },
        [
          `SMS notifications of tenant ${opts.tenant} (${opts.mode} mode):`,
          `  sms:       ${settings.sms_enabled ? 'on' : 'off'}`,
          `  language:  ${settings.language}`,
          `  sender id: ${settings.sender_id ?? `${settings.effective_sender_id} (the service's)`}`,
        ].join('\n'),
      );
    });
}
