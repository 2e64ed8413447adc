// `admin user ...`: dashboard users of a tenant (docs/dashboard.md), through the same service as /v1/users. The
// set-password link is printed once: send it to the user.
import { Option, type Command, type OptionValues } from 'commander';
import { isUuid } from '../../platform/uuid.js';
import { tenantExists } from '../../tenants/repository.js';
import { listUsers, userByEmail, userById, type UserRow } from '../../users/repository.js';
import { ROLES } from '../../users/roles.js';
import { createUser, newPasswordLink, removeUser } from '../../users/service.js';
import { toUser } from '../../users/views.js';
import { asUsage, text, uuid, UsageError, type CliContext } from '../context.js';

const role = () =>
  new Option(
    '--role <role>',
    'viewer reads; developer also changes deliveries, webhooks, test keys; owner also users, live keys',
  ).choices([...ROLES]);

export function userCommands(program: Command, ctx: CliContext): void {
  const user = program.command('user').description('Dashboard users of a tenant');
  user
    .command('create')
    .description('Create a user and print a one-time link that sets its password')
    .requiredOption('--tenant <id>', 'tenant id', uuid)
    .requiredOption('--email <email>', 'the email the user signs in with', text)
    .addOption(role().makeOptionMandatory())
    .option('--json', 'print JSON')
    .action(async (opts) => {
      if (!(await tenantExists(ctx.getPool(), opts.tenant))) throw new UsageError(`No tenant ${opts.tenant}.`);
      const config = ctx.getConfig();
      const created = await asUsage(() =>
        createUser(ctx.getPool(), config.dashboard, config.baseUrl, {
          tenantId: opts.tenant,
          email: opts.email,
          role: opts.role,
        }),
      );
      ctx.print(
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
      const { rows } = await listUsers(ctx.getPool(), opts.tenant, 100, 0);
      const data = rows.map(toUser);
      ctx.print(
        opts.json,
        { data },
        data.map((u) => `${u.id}  ${u.email}  ${u.role}  ${u.status}`).join('\n') || '(no users)',
      );
    });
  userActions(user, ctx);
}

function userActions(user: Command, ctx: CliContext): void {
  /** A user of the tenant named by id or email, or a usage error. */
  const userNamed = async (tenantId: string, idOrEmail: string) => {
    const found = isUuid(idOrEmail)
      ? await userById(ctx.getPool(), tenantId, idOrEmail)
      : await userByEmail(ctx.getPool(), tenantId, idOrEmail.trim().toLowerCase());
    if (!found || found.tenant_id !== tenantId) throw new UsageError(`No user "${idOrEmail}" in tenant ${tenantId}.`);
    return found;
  };
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
      const config = ctx.getConfig();
      const link = await newPasswordLink(ctx.getPool(), config.dashboard, config.baseUrl, opts.tenant, found.id);
      if (!link) throw new UsageError(`No user "${who}".`);
      ctx.print(
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
    await asUsage(() => removeUser(ctx.getPool(), opts.tenant, found.id));
    ctx.print(opts.json, { user_id: found.id, removed: true }, `Removed ${found.email}; its sessions ended.`);
  });
}
