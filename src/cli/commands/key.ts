// `admin key ...`: API keys: create, revoke, a publishable key's origins and its widget payment policy.
import { Option, type Command } from 'commander';
import { PAYMENT_METHODS, type PaymentMethod } from '../../../shared/deliveries/vocabulary.js';
import { setAllowedOrigins, keyIdByHash } from '../../keys/repository.js';
import { KEY_MODES, hashKey } from '../../platform/secrets.js';
import { createKey, revokeKey } from '../../keys/service.js';
import { isUuid } from '../../platform/uuid.js';
import { setWidgetPaymentPolicy } from '../../keys/widget-policy.js';
import { tenantExists } from '../../tenants/repository.js';
import { allowedOrigins, asUsage, int, list, uuid, UsageError, type CliContext } from '../context.js';

/** --key: the publishable key a command changes, by id. */
const publishableKey = () => new Option('--key <id>', 'publishable key id').argParser(uuid).makeOptionMandatory();

/** All of standard input (the key for `key revoke --stdin`). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

export function keyCommands(program: Command, ctx: CliContext): void {
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
      if (!(await tenantExists(ctx.getPool(), opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      const created = await createKey(ctx.getPool(), opts.tenant, opts.kind, opts.allowedOrigin, opts.mode);
      ctx.print(
        opts.json,
        { key_id: created.id, key: created.key, kind: opts.kind, mode: opts.mode, livemode: opts.mode === 'live' },
        `${created.key}  (id ${created.id}; ${opts.mode}; shown once)`,
      );
    });
  revokeCommand(key, ctx);
  key
    .command('origins')
    .description('Set the allowed origins of a publishable key')
    .addOption(publishableKey())
    .addOption(allowedOrigins('allowed origin (repeatable)'))
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (!(await setAllowedOrigins(ctx.getPool(), opts.key, opts.allowedOrigin)))
        throw new UsageError('No such publishable key.');
      ctx.print(opts.json, { key_id: opts.key, allowed_origins: opts.allowedOrigin }, 'Allowed origins updated.');
    });
  policyCommand(key, ctx);
}

/** The key to revoke: the id argument, or the key itself on standard input. */
async function revokeTarget(ctx: CliContext, idArg: string | undefined, stdin: boolean): Promise<string> {
  if (stdin) {
    if (idArg !== undefined) throw new UsageError('Give either a key id or --stdin, not both.');
    const target = (await readStdin()).trim();
    if (!target) throw new UsageError('--stdin: no key on standard input.');
    return target;
  }
  if (idArg === undefined)
    throw new UsageError('Give the key id to revoke (or --stdin with the key itself on standard input).');
  if (!isUuid(idArg)) {
    const keyId = await keyIdByHash(ctx.getPool(), hashKey(idArg));
    throw new UsageError(
      keyId
        ? `Pass the key's id (${keyId}), not the key itself: a key on the command line stays in shell history and process lists. ` +
            'Nothing was revoked. Or pipe the key: `... | admin key revoke --stdin`.'
        : `"${idArg.slice(0, 8)}..." is not a key id (a UUID). Nothing was revoked. To revoke by the key itself, pipe it: \`... | admin key revoke --stdin\`.`,
    );
  }
  return idArg;
}

// A key typed on the command line stays in shell history and process lists: the argument is the key's id, and
// the key itself is accepted only on standard input (--stdin). A key passed as the argument is refused (exit 2).
function revokeCommand(key: Command, ctx: CliContext): void {
  key
    .command('revoke [id]')
    .description('Revoke a key by its id, or by the key itself read from standard input (--stdin)')
    .option('--stdin', 'read the key itself (sk_... / pk_...) from standard input instead of taking an id')
    .option('--json', 'print JSON')
    .action(async (idArg: string | undefined, opts) => {
      const id = await revokeKey(ctx.getPool(), await revokeTarget(ctx, idArg, Boolean(opts.stdin)));
      if (!id) throw new UsageError('No such key.');
      ctx.print(opts.json, { key_id: id, revoked: true }, `Revoked key ${id}.`);
    });
}

function policyCommand(key: Command, ctx: CliContext): void {
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
      if (!(await asUsage(() => setWidgetPaymentPolicy(ctx.getPool(), opts.key, policy))))
        throw new UsageError('No such publishable key.');
      ctx.print(
        opts.json,
        { key_id: opts.key, ...policy },
        `Widget payment methods: ${policy.payment_methods.join(', ')}${policy.cod_amount_aoa ? ` (cod collects ${policy.cod_amount_aoa} centavos)` : ''}.`,
      );
    });
}
