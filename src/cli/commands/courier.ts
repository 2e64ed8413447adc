// `admin courier ...`: courier companies: create, link to tenants, list, (de)activate, rotate the fleet secret.
import { Option, type Command } from 'commander';
import { courierSlugExists, listCouriers, rotateFleetSecret, setCourierActive } from '../../couriers/repository.js';
import { generateWebhookSecret } from '../../platform/secrets.js';
import { createCourier, linkCouriers } from '../../couriers/service.js';
import { tenantExists } from '../../tenants/repository.js';
import { courierNamed, int, list, text, uuid, UsageError, type CliContext } from '../context.js';

export function courierCommands(program: Command, ctx: CliContext): void {
  const courier = program.command('courier').description('Courier companies');
  createCommand(courier, ctx);
  courier
    .command('link')
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .option('--courier <slug or id>', 'the courier company, by slug or id')
    .option('--all', 'every courier')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (Boolean(opts.courier) === Boolean(opts.all))
        throw new UsageError('Give exactly one of --courier <slug> or --all.');
      if (!(await tenantExists(ctx.getPool(), opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      const named = opts.courier ? await courierNamed(ctx.getPool(), opts.courier) : null;
      if (named?.adapter === 'simulated') {
        throw new UsageError(
          `${named.slug} is a simulated test courier: every tenant's test keys have it without linking, and live keys never (docs/test-mode.md).`,
        );
      }
      const slug = named?.slug ?? null;
      const linked = await linkCouriers(ctx.getPool(), opts.tenant, slug ?? 'all');
      ctx.print(opts.json, { tenant_id: opts.tenant, linked }, `Linked ${linked.length} courier(s).`);
    });
  courier
    .command('list')
    .description("Courier companies (id, slug, adapter, name): every one, or a tenant's")
    .option('--tenant <id>', 'only the companies linked to this tenant', uuid)
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (opts.tenant && !(await tenantExists(ctx.getPool(), opts.tenant)))
        throw new UsageError(`No tenant ${opts.tenant}.`);
      const rows = await listCouriers(ctx.getPool(), opts.tenant ?? null);
      ctx.print(
        opts.json,
        { data: rows },
        rows
          .map((r) => `${r.courier_id}  ${r.slug}  ${r.adapter}  ${r.name}${r.active ? '' : '  (inactive)'}`)
          .join('\n') || '(no couriers)',
      );
    });
  stateCommands(courier, ctx);
}

function createCommand(courier: Command, ctx: CliContext): void {
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
    .option(
      '--return-fee-pct <pct>',
      'rate card: a return to sender costs this % of the swapped route (default 100)',
      int,
    )
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
      if (await courierSlugExists(ctx.getPool(), opts.slug))
        throw new UsageError(`A courier with slug "${opts.slug}" exists already.`);
      const created = await createCourier(ctx.getPool(), {
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
          return_fee_pct: opts.returnFeePct,
        },
      });
      ctx.print(
        opts.json,
        created,
        `Courier ${created.slug} (${created.courier_id})\n  fleet secret: ${created.fleet_secret}`,
      );
    });
}

/** activate, deactivate, rotate-secret. */
function stateCommands(courier: Command, ctx: CliContext): void {
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
        const { id, slug } = await courierNamed(ctx.getPool(), idOrSlug);
        const changed = await setCourierActive(ctx.getPool(), id, active);
        if (!changed) throw new UsageError(`No courier with id "${id}".`);
        const state = active ? 'active' : 'inactive';
        ctx.print(
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
      const { slug } = await courierNamed(ctx.getPool(), opts.courier);
      const rotated = await rotateFleetSecret(ctx.getPool(), slug, generateWebhookSecret());
      if (!rotated) throw new UsageError(`No courier with slug "${slug}".`);
      const until = rotated.previous_secret_expires_at.toISOString();
      ctx.print(
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
}
