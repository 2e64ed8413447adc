// The admin command line (the "developer dashboard" for now): tenants, keys, courier companies, deliveries.
//   npm run --silent admin -- tenant create --name "Loja X" --allowed-origin https://shop.example --json
import { Command, CommanderError, InvalidArgumentError, Option, type OptionValues } from 'commander';
import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../platform/config.js';
import { connectTemporal } from '../platform/temporal.js';
import { deliveryWorkflowId, operatorActionSignal, type OperatorAction } from '../../shared/deliveries/definitions.js';
import { OPERATOR_ACTIONS, PAYMENT_METHODS, type PaymentMethod } from '../../shared/deliveries/vocabulary.js';
import { createPool, type Pool } from '../platform/db.js';
import { createTenant } from '../tenants/service.js';
import { createCourier, linkCouriers } from '../couriers/service.js';
import { createKey, normaliseOrigin, revokeKey } from '../keys/service.js';
import { KEY_MODES, generateWebhookSecret, hashKey } from '../platform/secrets.js';
import {
  courierById,
  courierBySlug,
  courierSlugExists,
  linkedActiveCourier,
  listCouriers,
  rotateFleetSecret,
  setCourierActive,
  type CourierRow,
} from '../couriers/repository.js';
import { deliveryEvents, deliveryStatus, type DeliveryEventRow } from '../deliveries/repository.js';
import { stalledSince } from '../deliveries/start-repository.js';
import { restartIfClosed } from '../deliveries/recovery.js';
import { keyIdByHash, setAllowedOrigins } from '../keys/repository.js';
import {
  dispatchPolicyOf,
  listTenants,
  saveDispatchPolicy,
  tenantExists,
  updateTenantPageSettings,
  type TenantPageSettings,
} from '../tenants/repository.js';
import { DispatchPolicy } from '../tenants/dispatch-policy.js';
import { isUuid } from '../platform/uuid.js';
import { setWidgetPaymentPolicy } from '../keys/widget-policy.js';
import { ApiError } from '../http/problem.js';
import { listUsers, userByEmail, userById, type UserRow } from '../users/repository.js';
import { ROLES } from '../users/roles.js';
import { toUser } from '../users/schemas.js';
import { createUser, newPasswordLink, removeUser } from '../users/service.js';

/** A usage mistake: printed as one line, exit code 2. */
class UsageError extends Error {}
/** The workflow ignored an operator's action (it records why): printed as one line, exit code 3. */
class IgnoredError extends Error {}

const origin = (value: string, previous: string[] = []) => {
  try {
    return [...previous, normaliseOrigin(value)];
  } catch {
    throw new InvalidArgumentError(`"${value}" is not an origin (expected scheme://host[:port]).`);
  }
};
/** --allowed-origin, repeatable: the origins given, normalised. */
const allowedOrigins = (description: string) =>
  new Option('--allowed-origin <origin>', description).default([]).argParser(origin);
/** --key: the publishable key a command changes, by id. */
const publishableKey = () => new Option('--key <id>', 'publishable key id').argParser(uuid).makeOptionMandatory();
const int = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`"${value}" is not a non-negative whole number.`);
  return Number(value);
};
const text = (value: string) => {
  if (!value.trim()) throw new InvalidArgumentError('It must not be empty.');
  return value.trim();
};
const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const uuid = (value: string) => {
  if (!isUuid(value)) throw new InvalidArgumentError(`"${value}" is not a UUID.`);
  return value;
};

/** A courier company named by its id or its slug, or a usage error. */
async function courierNamed(pool: Pool, idOrSlug: string): Promise<CourierRow> {
  const row = isUuid(idOrSlug) ? await courierById(pool, idOrSlug) : await courierBySlug(pool, idOrSlug);
  if (!row) throw new UsageError(`No courier with ${isUuid(idOrSlug) ? 'id' : 'slug'} "${idOrSlug}".`);
  return row;
}

/** "42 s", "17 min", "3 h 5 min", "2 d 4 h": how long ago, for people. */
function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** All of standard input (the key for `key revoke --stdin`). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

export function buildProgram(
  getPool: () => Pool,
  out: (text: string) => void = (t) => process.stdout.write(t),
  getTemporal: () => Promise<Client> = () => connectTemporal(loadConfig()),
  getConfig: () => Config = () => loadConfig(),
) {
  const print = (json: boolean, value: unknown, human: string) =>
    out(json ? JSON.stringify(value) + '\n' : human + '\n');
  const program = new Command('admin')
    .description('Delivery API administration')
    .exitOverride()
    .showHelpAfterError(false);
  program.configureOutput({ writeErr: (text) => process.stderr.write(text), writeOut: (text) => out(text) });

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
      const created = await createTenant(getPool(), opts.name, opts.allowedOrigin);
      print(
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
      const rows = await listTenants(getPool());
      print(opts.json, { data: rows }, rows.map((r) => `${r.tenant_id}  ${r.name}`).join('\n') || '(no tenants)');
    });

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
      const changes: Partial<TenantPageSettings> = {};
      const set = (
        column: keyof TenantPageSettings,
        value: string | undefined,
        check?: (v: string) => boolean,
        what?: string,
      ) => {
        if (value === undefined) return;
        const v = value.trim();
        if (v && check && !check(v)) throw new UsageError(`"${value}" is not ${what}.`);
        changes[column] = v || null;
      };
      set('display_name', opts.displayName);
      set('help_email', opts.helpEmail, (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), 'an email address');
      set('help_phone', opts.helpPhone, (v) => /^\+?[\d\s().-]{6,30}$/.test(v), 'a phone number');
      set('help_url', opts.helpUrl, (v) => /^https?:\/\//i.test(v) && URL.canParse(v), 'an http(s) URL');
      const saved = await updateTenantPageSettings(getPool(), opts.tenant, changes);
      if (!saved) throw new UsageError(`No tenant ${opts.tenant}.`);
      const { name, ...settings } = saved;
      print(
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
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const pool = getPool();
      if (!(await tenantExists(pool, opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      if (!['live', 'test'].includes(opts.mode)) throw new UsageError('--mode takes live or test.');
      const livemode = opts.mode === 'live';
      const policy = await dispatchPolicyOf(pool, opts.tenant, livemode);
      if (opts.autoRedispatch !== undefined) {
        if (!['on', 'off'].includes(opts.autoRedispatch)) throw new UsageError('--auto-redispatch takes on or off.');
        policy.auto_redispatch = opts.autoRedispatch === 'on';
      }
      if (opts.maxFeeIncreaseAoa !== undefined) policy.max_fee_increase_aoa = opts.maxFeeIncreaseAoa;
      if (opts.maxRedispatches !== undefined) policy.max_redispatches = opts.maxRedispatches;
      if (opts.assignTimeoutMinutes !== undefined) policy.assign_timeout_minutes = opts.assignTimeoutMinutes;
      if (opts.preferred !== undefined) {
        policy.preferred_company_ids = [];
        for (const name of list(opts.preferred)) {
          const company = await courierNamed(pool, name);
          if (!(await linkedActiveCourier(pool, opts.tenant, company.id, livemode)))
            throw new UsageError(`${company.slug} is not a company this tenant can book in ${opts.mode} mode.`);
          policy.preferred_company_ids.push(company.id);
        }
      }
      const checked = DispatchPolicy.safeParse(policy);
      if (!checked.success)
        throw new UsageError(checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      await saveDispatchPolicy(pool, opts.tenant, livemode, checked.data);
      print(
        opts.json,
        { tenant_id: opts.tenant, livemode, ...checked.data },
        [
          `Dispatch policy of tenant ${opts.tenant} (${opts.mode} mode):`,
          `  automatic failover:  ${checked.data.auto_redispatch ? 'on' : 'off'}`,
          `  max fee increase:    ${checked.data.max_fee_increase_aoa} centavos`,
          `  max redispatches:    ${checked.data.max_redispatches}`,
          `  assign timeout:      ${checked.data.assign_timeout_minutes} min`,
          `  preferred companies: ${checked.data.preferred_company_ids.join(', ') || '-'}`,
        ].join('\n'),
      );
    });

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .addOption(new Option('--kind <kind>', 'key kind').choices(['secret', 'publishable']).makeOptionMandatory())
    .addOption(
      new Option('--mode <mode>', 'live keys work on live objects, test keys (sk_test_, pk_test_) on test objects')
        .choices([...KEY_MODES])
        .default('live'),
    )
    .addOption(allowedOrigins('origin allowed for a publishable key (repeatable)'))
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (!(await tenantExists(getPool(), opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      const created = await createKey(getPool(), opts.tenant, opts.kind, opts.allowedOrigin, opts.mode);
      print(
        opts.json,
        { key_id: created.id, key: created.key, kind: opts.kind, mode: opts.mode, livemode: opts.mode === 'live' },
        `${created.key}  (id ${created.id}; ${opts.mode}; shown once)`,
      );
    });
  // A key typed on the command line stays in shell history and process lists: the argument is the key's id, and
  // the key itself is accepted only on standard input (--stdin). A key passed as the argument is refused (exit 2).
  key
    .command('revoke [id]')
    .description('Revoke a key by its id, or by the key itself read from standard input (--stdin)')
    .option('--stdin', 'read the key itself (sk_... / pk_...) from standard input instead of taking an id')
    .option('--json', 'print JSON')
    .action(async (idArg: string | undefined, opts) => {
      let target: string;
      if (opts.stdin) {
        if (idArg !== undefined) throw new UsageError('Give either a key id or --stdin, not both.');
        target = (await readStdin()).trim();
        if (!target) throw new UsageError('--stdin: no key on standard input.');
      } else {
        if (idArg === undefined)
          throw new UsageError('Give the key id to revoke (or --stdin with the key itself on standard input).');
        if (!isUuid(idArg)) {
          const keyId = await keyIdByHash(getPool(), hashKey(idArg));
          throw new UsageError(
            keyId
              ? `Pass the key's id (${keyId}), not the key itself: a key on the command line stays in shell history and process lists. ` +
                  'Nothing was revoked. Or pipe the key: `... | admin key revoke --stdin`.'
              : `"${idArg.slice(0, 8)}..." is not a key id (a UUID). Nothing was revoked. To revoke by the key itself, pipe it: \`... | admin key revoke --stdin\`.`,
          );
        }
        target = idArg;
      }
      const id = await revokeKey(getPool(), target);
      if (!id) throw new UsageError('No such key.');
      print(opts.json, { key_id: id, revoked: true }, `Revoked key ${id}.`);
    });
  key
    .command('origins')
    .description('Set the allowed origins of a publishable key')
    .addOption(publishableKey())
    .addOption(allowedOrigins('allowed origin (repeatable)'))
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (!(await setAllowedOrigins(getPool(), opts.key, opts.allowedOrigin)))
        throw new UsageError('No such publishable key.');
      print(opts.json, { key_id: opts.key, allowed_origins: opts.allowedOrigin }, 'Allowed origins updated.');
    });
  key
    .command('policy')
    .description(
      "Set the payment methods a publishable key's widget may book (default: prepaid,bank_transfer) and the cod amount",
    )
    .addOption(publishableKey())
    .requiredOption('--payment-methods <methods>', `comma-separated, of ${PAYMENT_METHODS.join(', ')}`, list)
    .option(
      '--cod-amount-aoa <centavos>',
      'with cod: the amount the courier collects on every widget delivery (else the widget sends it, above zero)',
      int,
    )
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const methods: string[] = opts.paymentMethods;
      const unknown = methods.filter((m) => !(PAYMENT_METHODS as readonly string[]).includes(m));
      if (unknown.length || !methods.length)
        throw new UsageError(
          `--payment-methods takes ${PAYMENT_METHODS.join(', ')} (at least one); not ${unknown.join(', ') || 'empty'}.`,
        );
      if (opts.codAmountAoa !== undefined && !methods.includes('cod'))
        throw new UsageError('--cod-amount-aoa goes with the cod payment method.');
      if (opts.codAmountAoa === 0) throw new UsageError('--cod-amount-aoa must be above zero.');
      const policy = {
        payment_methods: [...new Set(methods)] as PaymentMethod[],
        cod_amount_aoa: opts.codAmountAoa ?? null,
      };
      if (!(await setWidgetPaymentPolicy(getPool(), opts.key, policy)))
        throw new UsageError('No such publishable key.');
      print(
        opts.json,
        { key_id: opts.key, ...policy },
        `Widget payment methods: ${policy.payment_methods.join(', ')}${policy.cod_amount_aoa ? ` (cod collects ${policy.cod_amount_aoa} centavos)` : ''}.`,
      );
    });

  // Dashboard users (docs/dashboard.md). The set-password link is printed once: send it to the user.
  const user = program.command('user').description('Dashboard users of a tenant');
  const role = () =>
    new Option(
      '--role <role>',
      'viewer reads; developer also changes deliveries, webhooks, test keys; owner also users, live keys',
    ).choices([...ROLES]);
  /** The service's refusals (email taken, last owner, no such user) as one line, exit code 2. */
  const asUsage = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ApiError) throw new UsageError(err.detail);
      throw err;
    }
  };
  /** A user of the tenant named by id or email, or a usage error. */
  const userNamed = async (tenantId: string, idOrEmail: string) => {
    const found = isUuid(idOrEmail)
      ? await userById(getPool(), tenantId, idOrEmail)
      : await userByEmail(getPool(), tenantId, idOrEmail.trim().toLowerCase());
    if (!found || found.tenant_id !== tenantId) throw new UsageError(`No user "${idOrEmail}" in tenant ${tenantId}.`);
    return found;
  };
  user
    .command('create')
    .description('Create a user and print a one-time link that sets its password')
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .requiredOption('--email <email>', 'the email the user signs in with', text)
    .addOption(role().makeOptionMandatory())
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (!(await tenantExists(getPool(), opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      const config = getConfig();
      const created = await asUsage(() =>
        createUser(getPool(), config.dashboard, config.baseUrl, {
          tenantId: opts.tenant,
          email: opts.email,
          role: opts.role,
        }),
      );
      print(
        opts.json,
        {
          user_id: created.user.id,
          email: created.user.email,
          role: created.user.role,
          set_password_url: created.set_password_url,
          set_password_expires_at: created.set_password_expires_at,
        },
        [
          `User ${created.user.id}  ${created.user.email}  (${created.user.role})`,
          `  set-password link: ${created.set_password_url}`,
          `  works once, until ${created.set_password_expires_at.toISOString()}; send it to the user.`,
        ].join('\n'),
      );
    });
  user
    .command('list')
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const { rows } = await listUsers(getPool(), opts.tenant, 100, 0);
      const data = rows.map(toUser);
      print(
        opts.json,
        { data },
        data.map((u) => `${u.id}  ${u.email}  ${u.role}  ${u.status}`).join('\n') || '(no users)',
      );
    });
  /** `user <name> <user>`: `run` on one user of --tenant, named (`who`) by id or email. */
  const userCommand = (
    name: string,
    description: string,
    run: (found: UserRow, opts: OptionValues, who: string) => Promise<void>,
  ) =>
    user
      .command(`${name} <user>`)
      .description(description)
      .requiredOption('--tenant <id>', 'tenant id', uuid)
      .option('--json', 'print JSON')
      .action(async (who: string, opts) => run(await userNamed(opts.tenant, who), opts, who));
  userCommand(
    'link',
    'A new one-time set-password link for a user (by id or email); earlier links stop working',
    async (found, opts, who) => {
      const config = getConfig();
      const link = await newPasswordLink(getPool(), config.dashboard, config.baseUrl, opts.tenant, found.id);
      if (!link) throw new UsageError(`No user "${who}".`);
      print(
        opts.json,
        {
          user_id: found.id,
          set_password_url: link.set_password_url,
          set_password_expires_at: link.set_password_expires_at,
        },
        link.set_password_url,
      );
    },
  );
  userCommand('remove', 'Remove a user (by id or email); its sessions end at once', async (found, opts) => {
    await asUsage(() => removeUser(getPool(), opts.tenant, found.id));
    print(opts.json, { user_id: found.id, removed: true }, `Removed ${found.email}; its sessions ended.`);
  });

  const courier = program.command('courier').description('Courier companies');
  courier
    .command('create')
    .requiredOption('--name <name>', 'company name', text)
    .requiredOption('--slug <slug>', 'short unique name (used in fleet webhook paths)')
    .addOption(
      new Option('--adapter <adapter>', 'how the company is priced and booked')
        .choices(['rate_card', 'http'])
        .makeOptionMandatory(),
    )
    .option('--endpoint <url>', 'courier protocol base URL (http adapter; optional for rate_card)')
    .option('--logo-url <url>', 'logo URL')
    .option('--base-fee-aoa <centavos>', 'base fee, AOA centavos', int)
    .option('--base-eta-minutes <minutes>', 'base ETA', int)
    .option('--per-km-aoa <centavos>', 'rate card: fee per started km', int)
    .option('--per-kg-aoa <centavos>', 'rate card: fee per started kg above the threshold', int)
    .option('--per-kg-threshold-grams <grams>', 'rate card: weight included in the base fee', int)
    .option('--active-drivers <n>', 'fleet size', int)
    .option('--service-zones <zones>', 'comma-separated cities or provinces served', list)
    .option('--max-weight-grams <grams>', 'heaviest parcel carried', int)
    .option('--parcel-types <types>', 'comma-separated parcel types carried', list)
    .option('--timeout-ms <ms>', 'per-call timeout of the http adapter', int)
    .option('--require-delivery-pin', 'recipient must give a PIN to the driver')
    .option('--bank-transfer-enabled', 'accepts bank transfer payment')
    .option('--bank-name <name>')
    .option('--bank-account-holder <name>')
    .option('--bank-iban <iban>')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(opts.slug))
        throw new UsageError('--slug must be lower-case letters, digits and dashes.');
      if (opts.adapter === 'http' && !opts.endpoint)
        throw new UsageError('--endpoint is required with --adapter http.');
      for (const u of [opts.endpoint, opts.logoUrl]) {
        if (u && !URL.canParse(u)) throw new UsageError(`"${u}" is not a URL.`);
      }
      if (await courierSlugExists(getPool(), opts.slug))
        throw new UsageError(`A courier with slug "${opts.slug}" exists already.`);
      const created = await createCourier(getPool(), {
        name: opts.name,
        slug: opts.slug,
        adapter: opts.adapter,
        endpoint: opts.endpoint,
        logo_url: opts.logoUrl,
        base_fee_aoa: opts.baseFeeAoa,
        base_eta_minutes: opts.baseEtaMinutes,
        active_drivers: opts.activeDrivers,
        service_zones: opts.serviceZones,
        max_weight_grams: opts.maxWeightGrams,
        parcel_types: opts.parcelTypes,
        timeout_ms: opts.timeoutMs,
        require_delivery_pin: Boolean(opts.requireDeliveryPin),
        bank_transfer_enabled: Boolean(opts.bankTransferEnabled),
        bank_name: opts.bankName,
        bank_account_holder: opts.bankAccountHolder,
        bank_iban: opts.bankIban,
        rate_card: {
          per_km_aoa: opts.perKmAoa,
          per_kg_aoa: opts.perKgAoa,
          per_kg_threshold_grams: opts.perKgThresholdGrams,
        },
      });
      print(
        opts.json,
        created,
        `Courier ${created.slug} (${created.courier_id})\n  fleet secret: ${created.fleet_secret}`,
      );
    });
  courier
    .command('link')
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .option('--courier <slug or id>', 'the courier company, by slug or id')
    .option('--all', 'every courier')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (Boolean(opts.courier) === Boolean(opts.all))
        throw new UsageError('Give exactly one of --courier <slug> or --all.');
      if (!(await tenantExists(getPool(), opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      const named = opts.courier ? await courierNamed(getPool(), opts.courier) : null;
      if (named?.adapter === 'simulated') {
        throw new UsageError(
          `${named.slug} is a simulated test courier: every tenant's test keys have it without linking, and live keys never (docs/test-mode.md).`,
        );
      }
      const slug = named?.slug ?? null;
      const linked = await linkCouriers(getPool(), opts.tenant, slug ?? 'all');
      print(opts.json, { tenant_id: opts.tenant, linked }, `Linked ${linked.length} courier(s).`);
    });
  courier
    .command('list')
    .description("Courier companies (id, slug, adapter, name): every one, or a tenant's")
    .option('--tenant <id>', 'only the companies linked to this tenant', uuid)
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (opts.tenant && !(await tenantExists(getPool(), opts.tenant)))
        throw new UsageError(`No tenant ${opts.tenant}.`);
      const rows = await listCouriers(getPool(), opts.tenant ?? null);
      print(
        opts.json,
        { data: rows },
        rows
          .map((r) => `${r.courier_id}  ${r.slug}  ${r.adapter}  ${r.name}${r.active ? '' : '  (inactive)'}`)
          .join('\n') || '(no couriers)',
      );
    });
  for (const [name, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    courier
      .command(`${name} <slug-or-id>`)
      .description(
        active
          ? 'Make an inactive courier company quotable and bookable again, and accept its fleet events'
          : 'Stop quoting and booking a courier company and refuse its fleet events (403 courier_inactive); its deliveries stay as they are',
      )
      .option('--json', 'print JSON')
      .action(async (idOrSlug: string, opts) => {
        const { id, slug } = await courierNamed(getPool(), idOrSlug);
        const changed = await setCourierActive(getPool(), id, active);
        if (!changed) throw new UsageError(`No courier with id "${id}".`);
        const state = active ? 'active' : 'inactive';
        print(
          opts.json,
          { courier_id: id, slug, active, changed: changed.was_active !== active },
          `Courier ${slug} is ${state}${changed.was_active === active ? ' (it was already)' : ''}.`,
        );
      });
  }
  courier
    .command('rotate-secret')
    .description('Issue a new fleet secret (shown once); the old one keeps working for 24 h, then only the new one')
    .requiredOption('--courier <slug or id>', 'the courier company, by slug or id')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const { slug } = await courierNamed(getPool(), opts.courier);
      const rotated = await rotateFleetSecret(getPool(), slug, generateWebhookSecret());
      if (!rotated) throw new UsageError(`No courier with slug "${slug}".`);
      const until = rotated.previous_secret_expires_at.toISOString();
      print(
        opts.json,
        {
          courier_id: rotated.courier_id,
          slug: rotated.slug,
          fleet_secret: rotated.fleet_secret,
          previous_secret_valid_until: until,
        },
        `Courier ${rotated.slug}\n  new fleet secret: ${rotated.fleet_secret}\n  the previous secret stays valid until ${until}`,
      );
    });

  // Operators: stalled deliveries, found through Temporal visibility, and their recovery.
  const delivery = program.command('delivery').description('Deliveries (operators)');
  delivery
    .command('stalled')
    .description('List stalled deliveries (Temporal visibility query DeliveryStatus = "stalled")')
    .option('--tenant <id>', 'only this tenant', uuid)
    .option('--limit <n>', 'at most this many', int, 100)
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const client = await getTemporal();
      const query = stalledQuery(opts.tenant);
      const found: {
        delivery_id: string;
        workflow_id: string;
        reference: string | null;
        tenant_id: string | null;
        courier_slug: string | null;
      }[] = [];
      for await (const wf of client.workflow.list({ query })) {
        const attrs = wf.searchAttributes as Record<string, string[] | undefined>;
        found.push({
          delivery_id: wf.workflowId.replace(/^delivery-/, ''),
          workflow_id: wf.workflowId,
          reference: attrs.DeliveryReference?.[0] ?? null,
          tenant_id: attrs.TenantId?.[0] ?? null,
          courier_slug: attrs.CourierSlug?.[0] ?? null,
        });
        if (found.length >= opts.limit) break;
      }
      // Why and since when, from the delivery's own `delivery.stalled` event.
      const since = await stalledSince(getPool(), found.map((d) => d.delivery_id).filter(isUuid));
      const now = Date.now();
      const data = found.map((d) => {
        const stalled = since.get(d.delivery_id);
        return {
          ...d,
          reason: stalled?.reason ?? null,
          stalled_at: stalled?.stalled_at.toISOString() ?? null,
          age_seconds: stalled ? Math.floor((now - stalled.stalled_at.getTime()) / 1000) : null,
        };
      });
      const rows = data.map((d) => [
        d.reference ?? '?',
        d.reason ?? '?',
        d.stalled_at ? age(now - Date.parse(d.stalled_at)) : '?',
        d.courier_slug ?? '?',
        d.delivery_id,
      ]);
      const widths = [0, 1, 2, 3].map((i) =>
        Math.max(...[['REFERENCE', 'REASON', 'AGE', 'COURIER'][i], ...rows.map((r) => r[i])].map((c) => c.length)),
      );
      const line = (r: string[]) => r.map((c, i) => (i < 4 ? c.padEnd(widths[i]) : c)).join('  ');
      print(
        opts.json,
        { query, data },
        data.length
          ? [line(['REFERENCE', 'REASON', 'AGE', 'COURIER', 'DELIVERY']), ...rows.map(line)].join('\n')
          : `(no stalled deliveries)  query: ${query}`,
      );
    });
  delivery
    .command('recover <delivery_id>')
    .description(
      "Recover a stalled delivery: signal operatorAction to its workflow, then wait for the workflow's answer (the event it records). " +
        'Exit 0 when done, 3 when the workflow ignored the action (the reason is printed), 1 when no answer came in time.',
    )
    .addOption(new Option('--action <action>', 'what to do').choices([...OPERATOR_ACTIONS]).makeOptionMandatory())
    .option('--company <slug or id>', 'with redispatch: book this company instead (one linked to the tenant)')
    .addOption(new Option('--company-id <slug or id>', 'the same as --company').hideHelp())
    .option('--note <text>', 'why (kept in the event)')
    .option('--wait-seconds <n>', "how long to wait for the workflow's answer", int, 30)
    .option('--json', 'print JSON')
    .action(async (deliveryId: string, opts) => {
      if (!isUuid(deliveryId)) throw new UsageError(`"${deliveryId}" is not a delivery id (UUID).`);
      const named: string | undefined = opts.company ?? opts.companyId;
      if (named && opts.action !== 'redispatch') throw new UsageError('--company goes with --action redispatch.');
      const companyId = named ? (await courierNamed(getPool(), named)).id : undefined;
      const status = await deliveryStatus(getPool(), deliveryId);
      if (!status) throw new UsageError(`No delivery ${deliveryId}.`);
      if (status !== 'stalled')
        throw new UsageError(`Delivery ${deliveryId} is ${status}, not stalled: nothing to recover.`);
      const client = await getTemporal();
      const action: OperatorAction = {
        action: opts.action,
        ...(companyId ? { company_id: companyId } : {}),
        ...(opts.note ? { note: opts.note } : {}),
      };
      const before = new Set((await deliveryEvents(getPool(), deliveryId)).map((e) => e.id));
      // A workflow closed by hand (Terminate in the Temporal UI) is started again from the delivery's state first.
      if (await restartIfClosed(client, getPool(), getConfig(), deliveryId))
        process.stderr.write(`The workflow of ${deliveryId} was closed: started it again.\n`);
      await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).signal(operatorActionSignal, action);
      const answer = await operatorAnswer(getPool(), deliveryId, opts.action, before, opts.waitSeconds * 1000);
      if (!answer) {
        throw new Error(
          `Signalled ${opts.action} to ${deliveryWorkflowId(deliveryId)}, but the workflow recorded no answer within ${opts.waitSeconds} s. ` +
            'Is the worker running? Look at the workflow in the Temporal UI.',
        );
      }
      const payload = answer.payload ?? {};
      if (payload.ignored === true) {
        throw new IgnoredError(
          `The workflow ignored ${opts.action}: ${String(payload.reason ?? 'no reason given')}. Nothing changed (event ${answer.id}).`,
        );
      }
      print(
        opts.json,
        {
          delivery_id: deliveryId,
          ...action,
          event_id: answer.id,
          event_type: answer.event_type,
          status: await deliveryStatus(getPool(), deliveryId),
        },
        `${answer.event_type} (event ${answer.id}): delivery ${deliveryId} is now ${await deliveryStatus(getPool(), deliveryId)}.`,
      );
    });

  return program;
}

/**
 * The event the workflow records for an operator's action (source `operator`, the action in its payload; recorded
 * with `payload.ignored` when the workflow ignored it), among the events not in `before`; null after `waitMs`.
 */
async function operatorAnswer(
  pool: Pool,
  deliveryId: string,
  action: string,
  before: Set<string>,
  waitMs: number,
): Promise<DeliveryEventRow | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const answer = (await deliveryEvents(pool, deliveryId)).find(
      (e) => !before.has(e.id) && e.source === 'operator' && e.payload?.action === action,
    );
    if (answer) return answer;
    if (Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The visibility query an operator types in the Temporal UI. */
export const stalledQuery = (tenantId?: string) =>
  `DeliveryStatus = "stalled"${tenantId ? ` AND TenantId = "${tenantId}"` : ''}`;

export { UsageError };

export async function runAdmin(argv: string[]): Promise<number> {
  let pool: Pool | null = null;
  let temporal: Client | null = null;
  const getPool = () => (pool ??= createPool(loadConfig().databaseUrl, 2));
  const getTemporal = async () => (temporal ??= await connectTemporal(loadConfig()));
  const program = buildProgram(getPool, undefined, getTemporal);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 2;
    }
    if (err instanceof IgnoredError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 3;
    }
    const message = (err as Error).message;
    process.stderr.write(
      `error: ${message}\nCheck DATABASE_URL (is Postgres up and migrated? run \`npm run migrate\`) and, for delivery commands, TEMPORAL_ADDRESS.\n`,
    );
    return 1;
  } finally {
    await (pool as Pool | null)?.end();
    await (temporal as Client | null)?.connection.close();
  }
}

if (process.argv[1] && /admin\.(ts|js)$/.test(process.argv[1])) {
  runAdmin(process.argv.slice(2)).then((code) => process.exit(code));
}
