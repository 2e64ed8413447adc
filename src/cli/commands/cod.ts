// `admin cod terms ...`: cash on delivery's remittance terms per (tenant, courier company), the hours a courier has
// to hand collected cash over before it counts as overdue (default 48; docs/cash-on-delivery.md "Overdue").
import type { Command } from 'commander';
import { DEFAULT_TERMS_HOURS, setTerms, termsOf } from '../../cod/repository.js';
import { tenantExists } from '../../tenants/repository.js';
import { courierNamed, int, uuid, UsageError, type CliContext } from '../context.js';

export function codCommands(program: Command, ctx: CliContext): void {
  const cod = program.command('cod').description('Cash on delivery');
  cod
    .command('terms')
    .description("A tenant's remittance terms: list them, or set one company's (--courier with --hours or --default)")
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .option('--courier <slug or id>', 'the courier company, by slug or id')
    .option('--hours <n>', 'hours to remit collected cash (1..8760)', int)
    .option('--default', `back to the default (${DEFAULT_TERMS_HOURS} h)`)
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const pool = ctx.getPool();
      if (!(await tenantExists(pool, opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      if (opts.courier) {
        if ((opts.hours === undefined) === !opts.default)
          throw new UsageError('With --courier, give exactly one of --hours <n> or --default.');
        if (opts.hours !== undefined && (opts.hours < 1 || opts.hours > 8760))
          throw new UsageError('--hours must be between 1 and 8760.');
        const company = await courierNamed(pool, opts.courier);
        await setTerms(pool, opts.tenant, company.id, opts.default ? null : opts.hours);
      } else if (opts.hours !== undefined || opts.default) {
        throw new UsageError('--hours and --default need --courier.');
      }
      const terms = (await termsOf(pool, opts.tenant)).map((t) => ({
        company_id: t.company_id,
        remittance_terms_hours: t.terms_hours,
      }));
      ctx.print(
        opts.json,
        { tenant_id: opts.tenant, default_remittance_terms_hours: DEFAULT_TERMS_HOURS, remittance_terms: terms },
        [
          `default: ${DEFAULT_TERMS_HOURS} h`,
          ...terms.map((t) => `${t.company_id}  ${t.remittance_terms_hours} h`),
        ].join('\n'),
      );
    });
}
