// `admin tenant ...`: tenants (merchants), their tracking page settings and their dispatch policy (their SMS
// notifications: ./tenant-notifications.ts).
import type { Command } from 'commander';
import { createTenant } from '../../tenants/service.js';
import { DispatchPolicyChange, type DispatchPolicy } from '../../tenants/dispatch-policy.js';
import { listTenants, tenantExists } from '../../tenants/repository.js';
import { changeDispatchPolicy, changePageSettings } from '../../tenants/service.js';
import {
  allowedOrigins,
  asUsage,
  courierNamed,
  int,
  list,
  text,
  uuid,
  UsageError,
  type CliContext,
} from '../context.js';
import { notificationsCommand } from './tenant-notifications.js';

export function tenantCommands(program: Command, ctx: CliContext): void {
  const tenant = program.command('tenant').description('Tenants (merchants)');
  tenant
    .command('create')
    .description(
      'Create a tenant with a live and a test pair of keys, each a secret and a publishable key (shown once)',
    )
    .requiredOption('--name <name>', 'tenant name', text)
    .addOption(allowedOrigins('origin allowed for the publishable keys (repeatable)'))
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const created = await createTenant(ctx.getPool(), opts.name, opts.allowedOrigin);
      ctx.print(
        opts.json,
        created,
        [
          `Tenant ${created.tenant_id}`,
          `  secret key:           ${created.secret_key}`,
          `  publishable key:      ${created.publishable_key}`,
          `  test secret key:      ${created.test_secret_key}`,
          `  test publishable key: ${created.test_publishable_key}`,
          'Store the keys now: they are not shown again. Test keys see only test objects (docs/test-mode.md).',
        ].join('\n'),
      );
    });
  tenant
    .command('list')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const rows = await listTenants(ctx.getPool());
      ctx.print(opts.json, { data: rows }, rows.map((r) => `${r.tenant_id}  ${r.name}`).join('\n') || '(no tenants)');
    });
  settingsCommand(tenant, ctx);
  dispatchCommand(tenant, ctx);
  notificationsCommand(tenant, ctx);
}

function settingsCommand(tenant: Command, ctx: CliContext): void {
  tenant
    .command('settings')
    .description(
      "What the recipients' tracking page shows of the shop: its name and a help contact (an empty value clears one)",
    )
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .option('--display-name <name>', "the shop's name as customers know it (default: the tenant's name)")
    .option('--help-email <email>', 'help contact: email address')
    .option('--help-phone <phone>', 'help contact: phone number')
    .option('--help-url <url>', 'help contact: an http(s) page')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const saved = await asUsage(() =>
        changePageSettings(ctx.getPool(), opts.tenant, {
          display_name: opts.displayName,
          help_email: opts.helpEmail,
          help_phone: opts.helpPhone,
          help_url: opts.helpUrl,
        }),
      );
      if (!saved) throw new UsageError(`No tenant ${opts.tenant}.`);
      const { name, ...settings } = saved;
      ctx.print(
        opts.json,
        { tenant_id: opts.tenant, ...settings },
        [
          `Tracking page of tenant ${opts.tenant}:`,
          `  shop name:  ${settings.display_name ?? `${name} (the tenant's name)`}`,
          `  help email: ${settings.help_email ?? '-'}`,
          `  help phone: ${settings.help_phone ?? '-'}`,
          `  help page:  ${settings.help_url ?? '-'}`,
        ].join('\n'),
      );
    });
}

/** The change the options ask for (companies named by slug or id resolved to ids); empty: show the policy. */
async function dispatchChange(ctx: CliContext, opts: Record<string, string | number | undefined>) {
  const change: Partial<DispatchPolicy> = {};
  if (opts.autoRedispatch !== undefined) {
    if (!['on', 'off'].includes(String(opts.autoRedispatch)))
      throw new UsageError('--auto-redispatch takes on or off.');
    change.auto_redispatch = opts.autoRedispatch === 'on';
  }
  if (opts.maxFeeIncreaseAoa !== undefined) change.max_fee_increase_aoa = Number(opts.maxFeeIncreaseAoa);
  if (opts.maxRedispatches !== undefined) change.max_redispatches = Number(opts.maxRedispatches);
  if (opts.assignTimeoutMinutes !== undefined) change.assign_timeout_minutes = Number(opts.assignTimeoutMinutes);
  if (opts.maxDeliveryAttempts !== undefined) change.max_delivery_attempts = Number(opts.maxDeliveryAttempts);
  if (opts.preferred !== undefined) {
    change.preferred_company_ids = [];
    for (const name of list(String(opts.preferred)))
      change.preferred_company_ids.push((await courierNamed(ctx.getPool(), name)).id);
  }
  const checked = DispatchPolicyChange.safeParse(change);
  if (!checked.success)
    throw new UsageError(checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return checked.data;
}

function dispatchCommand(tenant: Command, ctx: CliContext): void {
  tenant
    .command('dispatch')
    .description(
      'The dispatch policy: automatic failover to another courier before pickup (docs/deliveries.md); options change it',
    )
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .option(
      '--mode <live|test>',
      "the mode whose policy to show or change (each mode has its own; test deliveries take test mode's)",
      'live',
    )
    .option('--auto-redispatch <on|off>', 'rebook automatically before pickup')
    .option('--max-fee-increase-aoa <centavos>', 'the most a new company may cost over the locked fee', int)
    .option('--max-redispatches <n>', 'moves to another company per delivery (0-10)', int)
    .option(
      '--assign-timeout-minutes <n>',
      'how long a booked delivery waits for the courier to assign it (1-1440)',
      int,
    )
    .option('--preferred <companies>', 'companies to book first, in order: slugs or ids, comma-separated ("" clears)')
    .option('--max-delivery-attempts <n>', 'delivery attempts before the parcel returns to the sender (1-5)', int)
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const pool = ctx.getPool();
      if (!(await tenantExists(pool, opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      if (!['live', 'test'].includes(opts.mode)) throw new UsageError('--mode takes live or test.');
      const livemode = opts.mode === 'live';
      const change = await dispatchChange(ctx, opts);
      // The same service as PUT /v1/settings/dispatch: a preferred company must be one the tenant can book.
      const policy = await asUsage(() => changeDispatchPolicy(pool, opts.tenant, livemode, change));
      ctx.print(
        opts.json,
        { tenant_id: opts.tenant, livemode, ...policy },
        [
          `Dispatch policy of tenant ${opts.tenant} (${opts.mode} mode):`,
          `  automatic failover:  ${policy.auto_redispatch ? 'on' : 'off'}`,
          `  max fee increase:    ${policy.max_fee_increase_aoa} centavos`,
          `  max redispatches:    ${policy.max_redispatches}`,
          `  assign timeout:      ${policy.assign_timeout_minutes} min`,
          `  preferred companies: ${policy.preferred_company_ids.join(', ') || '-'}`,
          `  delivery attempts:   ${policy.max_delivery_attempts}`,
        ].join('\n'),
      );
    });
}
