// Starting a delivery's workflow: after the creating transaction commits, and again from the
// reconciler for any delivery whose workflow never started. Conflict policy "use existing" makes
// a second start while the workflow runs harmless; reuse policy "reject duplicate" makes a start after
// it finished a no-op (WorkflowExecutionAlreadyStartedError, taken as started): a finished delivery is
// never run twice.
import type { Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Config } from '../platform/config.js';
import type { Pool } from '../platform/db.js';
import { startWorkflowOnce } from '../platform/temporal.js';
import {
  deliveryWorkflowId,
  type DeliveryContinuedState,
  type DeliveryTimeouts,
  type DeliveryWorkflowInput,
} from '../../shared/deliveries/definitions.js';
import {
  CourierSlugKey,
  DeliveryLivemodeKey,
  DeliveryReferenceKey,
  DeliveryStatusKey,
  TenantIdKey,
} from '../../shared/search-attributes.js';
import type { deliveryWorkflow } from '../../workflows/deliveries/workflows.js';
import { DISPATCH_MAX_INTERVAL_MS } from '../../shared/timeouts.js';
import { redispatchPolicyFor } from '../tenants/dispatch-policy.js';
import { dispatchPolicyOf } from '../tenants/repository.js';
import {
  markWorkflowStarted,
  unstartedDeliveries,
  workflowSummaryFacts,
  type StartableDelivery,
  type StartContext,
} from './start-repository.js';
import { workflowStaticDetails, workflowStaticSummary } from './workflow-summary.js';

export function timeoutsFrom(config: Config): DeliveryTimeouts {
  return {
    paymentWindowMs: config.paymentWindowMs,
    stateBudgetsMs: config.stateBudgetsMs,
    dispatch: {
      maximumAttempts: config.dispatchMaxAttempts,
      initialIntervalMs: config.dispatchInitialIntervalMs,
      maximumIntervalMs: DISPATCH_MAX_INTERVAL_MS,
    },
    bookingReleaseRetryMs: config.bookingReleaseRetryMs,
  };
}

/**
 * Starts the delivery's workflow and records the start (workflow_started_at). `restart`: the state to start from when
 * its earlier workflow was closed by hand while the delivery was not final (src/deliveries/recovery.ts); that start
 * runs a new workflow where the first one ran.
 */
export async function startDeliveryWorkflow(
  client: Client,
  pool: Pool,
  config: Config,
  d: StartableDelivery,
  restart?: DeliveryContinuedState,
): Promise<void> {
  await startWorkflowOf(client, pool, config, d, restart);
  await markWorkflowStarted(pool, d.id);
}

/**
 * The create route's start: the merchant's answer waits for the workflow to start, not for the record of it (a second
 * commit). Should the record fail (`onRecordError`), the reconciler finds the delivery and starts its workflow again,
 * which finds the running one: harmless.
 */
export async function startCreatedDeliveryWorkflow(
  client: Client,
  pool: Pool,
  config: Config,
  d: StartableDelivery & { start_context?: StartContext },
  onRecordError: (err: Error) => void,
): Promise<void> {
  await startWorkflowOf(client, pool, config, d, undefined, d.start_context);
  markWorkflowStarted(pool, d.id).catch(onRecordError);
}

/** The tenant's dispatch policy of the delivery's mode and what the Temporal UI shows of it, read in parallel. */
async function startContextOf(pool: Pool, d: StartableDelivery): Promise<StartContext> {
  const [policy, facts] = await Promise.all([
    dispatchPolicyOf(pool, d.tenant_id, d.livemode),
    workflowSummaryFacts(pool, d.id),
  ]);
  return { policy, facts };
}

async function startWorkflowOf(
  client: Client,
  pool: Pool,
  config: Config,
  d: StartableDelivery,
  restart?: DeliveryContinuedState,
  /** Read by the creation's insert, in its round trip (src/deliveries/start-repository.ts insertDelivery). */
  known?: StartContext,
): Promise<void> {
  // Automatic failover as the tenant's policy of the delivery's mode stands now (absent when off: a failure before pickup stalls).
  // What the Temporal UI shows of it (summary and details), read beside the policy.
  const { policy, facts } = known ?? (await startContextOf(pool, d));
  const redispatch = redispatchPolicyFor(policy, config.assignTimeoutUnitMs);
  const input: DeliveryWorkflowInput = {
    deliveryId: d.id,
    tenantId: d.tenant_id,
    reference: d.reference,
    companyId: d.company_id,
    courierSlug: d.courier_slug,
    initialStatus: d.initial_status,
    createdEventId: d.created_event_id,
    requireDeliveryPin: d.require_delivery_pin,
    slaDeadlineAt: d.sla_deadline_at ? d.sla_deadline_at.toISOString() : null,
    timeouts: timeoutsFrom(config),
    webhooks: { schedule: config.webhookScheduleMs },
    continueAsNewAfterEvents: config.workflowHistoryLimit,
    ...(redispatch ? { redispatch } : {}),
    maxDeliveryAttempts: policy.max_delivery_attempts,
    ...(d.return_of ? { returnOf: d.return_of } : {}),
    ...(restart ? { continued: restart } : {}),
    ...(d.payment_method ? { cashOnDelivery: d.payment_method === 'cod' } : {}),
  };
  // The workflow may have run and finished already (its start was not recorded here): nothing to start then.
  await startWorkflowOnce<typeof deliveryWorkflow>(client, 'deliveryWorkflow', {
    taskQueue: config.taskQueue,
    workflowId: deliveryWorkflowId(d.id),
    args: [input],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: restart ? WorkflowIdReusePolicy.ALLOW_DUPLICATE : WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes: [
      { key: DeliveryStatusKey, value: restart?.status ?? d.initial_status },
      { key: TenantIdKey, value: d.tenant_id },
      { key: DeliveryReferenceKey, value: d.reference },
      { key: CourierSlugKey, value: d.courier_slug },
      { key: DeliveryLivemodeKey, value: d.livemode },
    ],
    ...(facts ? { staticSummary: workflowStaticSummary(facts), staticDetails: workflowStaticDetails(facts) } : {}),
  });
}

/** A workflow must exist before it can take an update (a cancel, a test helper): starts it when the reconciler has not yet. */
export async function ensureDeliveryWorkflow(
  client: Client,
  pool: Pool,
  config: Config,
  delivery: { id: string; workflow_started_at: Date | null },
): Promise<void> {
  if (delivery.workflow_started_at) return;
  const [missing] = await unstartedDeliveries(pool, 0, 1, delivery.id);
  if (missing) await startDeliveryWorkflow(client, pool, config, missing);
}

/**
 * Starts every missing workflow; returns how many it started (or found already run). A delivery whose start fails is
 * reported to `onError` (default: the console) and skipped, so one bad row never holds up the others; the next pass
 * tries it again.
 */
export async function reconcileOnce(
  client: Client,
  pool: Pool,
  config: Config,
  olderThanMs = 10_000,
  onError: (deliveryId: string, err: Error) => void = (id, err) =>
    console.error(`Reconciler could not start delivery ${id} (will retry):`, err.message),
): Promise<number> {
  const missing = await unstartedDeliveries(pool, olderThanMs);
  let started = 0;
  for (const d of missing) {
    try {
      await startDeliveryWorkflow(client, pool, config, d);
      started++;
    } catch (err) {
      onError(d.id, err as Error);
    }
  }
  return started;
}
