// `admin delivery ...` (operators): stalled deliveries, found through Temporal visibility, and their recovery.
import { Option, type Command } from 'commander';
import {
  deliveryWorkflowId,
  operatorActionSignal,
  type OperatorAction,
} from '../../../shared/deliveries/definitions.js';
import { OPERATOR_ACTIONS } from '../../../shared/deliveries/vocabulary.js';
import {
  CourierSlugKey,
  DeliveryLivemodeKey,
  DeliveryReferenceKey,
  TenantIdKey,
} from '../../../shared/search-attributes.js';
import type { Pool } from '../../platform/db.js';
import { restartIfClosed } from '../../deliveries/recovery.js';
import { deliveryEvents, deliveryStatus, type DeliveryEventRow } from '../../deliveries/repository.js';
import { stalledSince } from '../../deliveries/start-repository.js';
import { isUuid } from '../../platform/uuid.js';
import { courierNamed, IgnoredError, int, uuid, UsageError, type CliContext } from '../context.js';

/** "42 s", "17 min", "3 h 5 min", "2 d 4 h": how long ago, for people. */
function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

export function deliveryCommands(program: Command, ctx: CliContext): void {
  const delivery = program.command('delivery').description('Deliveries (operators)');
  delivery
    .command('stalled')
    .description(
      'List stalled deliveries (Temporal visibility query DeliveryStatus = "stalled"), with their mode (live or test)',
    )
    .option('--tenant <id>', 'only this tenant', uuid)
    .addOption(
      new Option('--mode <mode>', 'only live or only test deliveries (search attribute DeliveryLivemode)').choices([
        'live',
        'test',
      ]),
    )
    .option('--limit <n>', 'at most this many', int, 100)
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const client = await ctx.getTemporal();
      const query = stalledQuery(opts.tenant, opts.mode);
      const found: {
        delivery_id: string;
        workflow_id: string;
        reference: string | null;
        tenant_id: string | null;
        livemode: boolean | null;
        courier_slug: string | null;
      }[] = [];
      for await (const wf of client.workflow.list({ query })) {
        const attrs = wf.typedSearchAttributes;
        found.push({
          delivery_id: wf.workflowId.replace(/^delivery-/, ''),
          workflow_id: wf.workflowId,
          reference: attrs.get(DeliveryReferenceKey) ?? null,
          tenant_id: attrs.get(TenantIdKey) ?? null,
          // null: a workflow started before DeliveryLivemode existed.
          livemode: attrs.get(DeliveryLivemodeKey) ?? null,
          courier_slug: attrs.get(CourierSlugKey) ?? null,
        });
        if (found.length >= opts.limit) break;
      }
      // Why and since when, from the delivery's own `delivery.stalled` event.
      const since = await stalledSince(ctx.getPool(), found.map((d) => d.delivery_id).filter(isUuid));
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
        d.livemode === null ? '?' : d.livemode ? 'live' : 'test',
        d.reason ?? '?',
        d.stalled_at ? age(now - Date.parse(d.stalled_at)) : '?',
        d.courier_slug ?? '?',
        d.delivery_id,
      ]);
      const header = ['REFERENCE', 'MODE', 'REASON', 'AGE', 'COURIER', 'DELIVERY'];
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
      const line = (r: string[]) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]) : c)).join('  ');
      ctx.print(
        opts.json,
        { query, data },
        data.length ? [line(header), ...rows.map(line)].join('\n') : `(no stalled deliveries)  query: ${query}`,
      );
    });
  recoverCommand(delivery, ctx);
}

function recoverCommand(delivery: Command, ctx: CliContext): void {
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
      const companyId = named ? (await courierNamed(ctx.getPool(), named)).id : undefined;
      const status = await deliveryStatus(ctx.getPool(), deliveryId);
      if (!status) throw new UsageError(`No delivery ${deliveryId}.`);
      if (status !== 'stalled')
        throw new UsageError(`Delivery ${deliveryId} is ${status}, not stalled: nothing to recover.`);
      const client = await ctx.getTemporal();
      const action: OperatorAction = {
        action: opts.action,
        ...(companyId ? { company_id: companyId } : {}),
        ...(opts.note ? { note: opts.note } : {}),
      };
      const before = new Set((await deliveryEvents(ctx.getPool(), deliveryId)).map((e) => e.id));
      // A workflow closed by hand (Terminate in the Temporal UI) is started again from the delivery's state first.
      if (await restartIfClosed(client, ctx.getPool(), ctx.getConfig(), deliveryId))
        process.stderr.write(`The workflow of ${deliveryId} was closed: started it again.\n`);
      await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).signal(operatorActionSignal, action);
      const answer = await operatorAnswer(ctx.getPool(), deliveryId, opts.action, before, opts.waitSeconds * 1000);
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
      ctx.print(
        opts.json,
        {
          delivery_id: deliveryId,
          ...action,
          event_id: answer.id,
          event_type: answer.event_type,
          status: await deliveryStatus(ctx.getPool(), deliveryId),
        },
        `${answer.event_type} (event ${answer.id}): delivery ${deliveryId} is now ${await deliveryStatus(ctx.getPool(), deliveryId)}.`,
      );
    });
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

/** The visibility query an operator types in the Temporal UI (docs/operations.md has the saved one). */
export const stalledQuery = (tenantId?: string, mode?: 'live' | 'test') =>
  `DeliveryStatus = "stalled"${tenantId ? ` AND TenantId = "${tenantId}"` : ''}` +
  (mode ? ` AND DeliveryLivemode = ${mode === 'live'}` : '');
