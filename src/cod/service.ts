// Cash on delivery for the merchant (docs/cash-on-delivery.md): confirming or disputing a courier's remittance, the
// balances per courier company, a delivery's cash line, the remittance terms, and the overdue sweep.
import { randomUUID } from 'node:crypto';
import { inTransaction, type Db, type Pool } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import { ApiError } from '../http/problem.js';
import type { OutboxMessage } from '../webhooks/dispatcher.js';
import { recordCodEvent } from './collection.js';
import { confirmationEntries, disputeEntries, figuresOf, type Account, type RemittedItem } from './ledger.js';
import {
  accountNets,
  bookTransaction,
  claimOverdue,
  markOverdueNotified,
  outstandingSummary,
  setCollectionsRemittance,
} from './repository.js';
import { itemsOf, remittanceById, settleRemittance, type RemittanceRow } from './remittance-repository.js';

const netsOf = (rows: { account: Account; net: string }[]) =>
  Object.fromEntries(rows.map((r) => [r.account, Number(r.net)])) as Partial<Record<Account, number>>;

/**
 * Confirms (the cash arrived) or disputes (it did not, or not all of it) a `reported` remittance: 409
 * remittance_not_reported otherwise. A dispute puts its items' cash back with the courier (outstanding again). Null
 * when the scope has no such remittance.
 */
export async function settle(
  pool: Pool,
  scope: Scope,
  id: string,
  outcome: { status: 'confirmed' } | { status: 'disputed'; reason: string },
): Promise<RemittanceRow | null> {
  return inTransaction(pool, async (client) => {
    const r = await remittanceById(client, scope, id, true);
    if (!r) return null;
    if (r.status !== 'reported' || !(await settleRemittance(client, id, outcome.status, reasonOf(outcome)))) {
      throw new ApiError(
        409,
        'remittance_not_reported',
        `The remittance is ${r.status}: only a reported remittance can be confirmed or disputed.`,
      );
    }
    const items: RemittedItem[] = (await itemsOf(client, [id])).map((i) => ({
      deliveryId: i.delivery_id,
      amountAoa: Number(i.amount_aoa),
      feeDeductedAoa: Number(i.fee_deducted_aoa),
    }));
    const disputed = outcome.status === 'disputed';
    if (disputed)
      await setCollectionsRemittance(
        client,
        items.map((i) => i.deliveryId),
        null,
      );
    const kind = disputed ? 'dispute' : 'confirmation';
    await bookTransaction(
      client,
      {
        id: randomUUID(),
        tenantId: scope.tenantId,
        livemode: scope.livemode,
        companyId: r.company_id,
        kind,
        key: `${kind}:${id}`,
        remittanceId: id,
        memo: disputed ? { reason: reasonOf(outcome) } : {},
      },
      disputed ? disputeEntries(items) : confirmationEntries(items),
    );
    return remittanceById(client, scope, id);
  });
}

const reasonOf = (o: { status: string; reason?: string }) => o.reason ?? null;

export interface Balance {
  company_id: string;
  company_name: string;
  collected_aoa: number;
  remitted_aoa: number;
  fee_deducted_aoa: number;
  outstanding_aoa: number;
  overdue_aoa: number;
  oldest_outstanding_at: string | null;
}

/** The scope's balances per courier company it has collected cash with, by company name. */
export async function balances(db: Db, scope: Scope): Promise<Balance[]> {
  const [nets, summary] = await Promise.all([accountNets(db, scope), outstandingSummary(db, scope)]);
  return summary.map((s) => {
    const f = figuresOf(netsOf(nets.filter((n) => n.company_id === s.company_id)));
    return {
      company_id: s.company_id,
      company_name: s.company_name,
      collected_aoa: f.collected,
      remitted_aoa: f.remitted,
      fee_deducted_aoa: f.feeDeducted,
      outstanding_aoa: f.outstanding,
      overdue_aoa: Number(s.overdue_aoa),
      oldest_outstanding_at: s.oldest_outstanding_at ? s.oldest_outstanding_at.toISOString() : null,
    };
  });
}

/**
 * Raises cod.overdue once per collection past its remittance terms and not remitted: a batch per call, each in the
 * transaction that marks it. Returns the webhook messages to send and how many were raised.
 */
export async function raiseOverdue(pool: Pool, limit = 200): Promise<{ raised: number; messages: OutboxMessage[] }> {
  return inTransaction(pool, async (client) => {
    const due = await claimOverdue(client, limit);
    const messages: OutboxMessage[] = [];
    for (const c of due) {
      const payload = {
        company_id: c.company_id,
        collected_aoa: Number(c.collected_aoa),
        collected_at: c.collected_at.toISOString(),
        due_at: c.due_at.toISOString(),
      };
      const event = { deliveryId: c.delivery_id, tenantId: c.tenant_id, eventType: 'cod.overdue', payload };
      const message = await recordCodEvent(client, event, true);
      if (message) messages.push(message);
    }
    await markOverdueNotified(
      client,
      due.map((c) => c.delivery_id),
    );
    return { raised: due.length, messages };
  });
}
