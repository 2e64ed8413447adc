// Test helpers (docs/test-mode.md): drive a test delivery the way its courier and its clock would, with a test
// secret key. A live key gets 404 on every one of them, and a test key finds test deliveries only (a live delivery
// is 404 as for another tenant). Each answers with the Delivery once the step is recorded, so the merchant's
// webhooks for it have left by then.
//   POST /v1/test_helpers/deliveries/{id}/advance                {"to": <status>, "pin"?, "reason"?}  the courier's fleet event
//                                                                (`attempt_failed` with a reason: a failed delivery attempt)
//   POST /v1/test_helpers/deliveries/{id}/stall                  {"reason"?}               a state budget running out
//   POST /v1/test_helpers/deliveries/{id}/expire_payment_window  {}                        the payment window running out
// A step the current status does not allow is 409 delivery_transition_not_allowed with `current_status`. `advance`
// first waits (bounded) for a booking under way, answers 200 unchanged when the delivery already has the status asked
// for, and takes `failed` from any status that is not final, at any moment.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { z } from 'zod';
import type { Pool } from '../platform/db.js';
import type { AppDeps } from '../platform/deps.js';
import { passFleetEvent } from './fleet-events.js';
import { eventOfFleetWebhook, type DeliveryEventRow, type DeliveryRow } from './repository.js';
import { Delivery } from './schemas.js';
import { ensureDeliveryWorkflow } from './start.js';
import { toDelivery } from './views.js';
import { ProofOfDelivery } from './proof.js';
import { EXAMPLE_PROOF_OF_DELIVERY } from '../http/examples.js';
import { parseJsonBodies } from '../http/json-body.js';
import { ApiError } from '../http/problem.js';
import type { Scope } from '../platform/scope.js';
import { scopeOf } from '../http/plugins/auth.js';
import { IdempotencyHeaders, problems } from '../http/schemas.js';
import { DeliveryId } from './schemas.js';
import { TestHelperRejected, testHelperUpdate, type TestHelperRequest } from '../../shared/deliveries/definitions.js';
import { updateDeliveryWorkflow } from './catch-up.js';
import { ATTEMPT_FAILURE_REASONS, STALL_REASONS, type Status } from '../../shared/deliveries/vocabulary.js';
import { checkAttemptReason } from './fleet-routes.js';
import { FLEET_TRANSITIONS, testHelperRefusal } from '../../shared/deliveries/state-table.js';
import { loadDelivery, loadDeliveryWithEvents } from './load.js';

/** How long a helper waits for the workflow to record its step before answering 503 test_helper_pending. */
const STEP_WAIT_MS = 10_000;
/** How long `advance` waits for a booking under way to settle before it looks at the status. */
const BOOKING_WAIT_MS = 5_000;
const POLL_MS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether the delivery's booking is still under way: pending with no booking recorded yet (the dispatch after
 * creation, payment, a resume without a courier job, or a redispatch), or with the job just booked as accepted,
 * `delivery.assigned` about to follow. (The courier's job reference may reach the row before `delivery.dispatched`.)
 */
function bookingUnderWay(d: DeliveryRow, events: DeliveryEventRow[]): boolean {
  if (d.status !== 'pending') return false;
  const last = [...events]
    .reverse()
    .find((e) => e.event_type === 'delivery.dispatched' || e.event_type === 'delivery.redispatched');
  if (last?.event_type !== 'delivery.dispatched') return true;
  return last.payload?.booking_status === 'accepted';
}

/** The statuses `advance` moves a test delivery to: each is the courier's fleet event of the same name. */
const ADVANCE_TARGETS = [
  'assigned',
  'pickup_ready',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'failed',
  'attempt_failed',
] as const;
type AdvanceTarget = (typeof ADVANCE_TARGETS)[number];

const AdvanceBody = z
  .strictObject({
    to: z
      .enum(ADVANCE_TARGETS)
      .describe(
        'the status to move to, as the courier reporting it would; `attempt_failed`: a failed delivery attempt (with `reason`)',
      ),
    reason: z
      .enum(ATTEMPT_FAILURE_REASONS)
      .optional()
      .describe('with `attempt_failed` (required there): why the attempt failed, as the courier would say'),
    pin: z
      .union([z.string().max(32), z.number()])
      .optional()
      .describe(
        "with `delivered`, when the courier requires a PIN (test-pin): the delivery's delivery_pin, as the recipient tells the driver",
      ),
    eta_minutes: z
      .int()
      .min(1)
      .max(1440)
      .optional()
      .describe("with `out_for_delivery`: the courier's estimate, in minutes (the recipient's SMS tells it)"),
    proof: ProofOfDelivery.optional().describe(
      "with `delivered` only: the courier's proof of delivery, shown as the delivery's proof_of_delivery",
    ),
    cash_collected_aoa: z
      .int()
      .min(0)
      .max(1e14)
      .optional()
      .describe(
        'with `delivered` of a cash-on-delivery delivery: the cash the simulated courier collected (absent: the expected cash_collect_aoa)',
      ),
  })
  .refine((body) => body.eta_minutes === undefined || body.to === 'out_for_delivery', {
    path: ['eta_minutes'],
    message: 'eta_minutes is accepted with to: out_for_delivery only',
    params: { code: 'not_allowed' },
  })
  .refine((body) => body.proof === undefined || body.to === 'delivered', {
    path: ['proof'],
    message: 'proof is accepted with to: delivered only',
    params: { code: 'not_allowed' },
  })
  .meta({
    examples: [
      { to: 'pickup_ready' },
      { to: 'out_for_delivery', eta_minutes: 25 },
      { to: 'delivered', pin: '4821' },
      { to: 'attempt_failed', reason: 'recipient_unavailable' },
      { to: 'delivered', proof: EXAMPLE_PROOF_OF_DELIVERY },
      { to: 'delivered', cash_collected_aoa: 1500000 },
    ],
  });

/** A simulated courier collects the expected cash of a cash-on-delivery delivery, unless the caller says otherwise. */
function testCash(delivery: DeliveryRow, to: AdvanceTarget, sent: number | undefined) {
  if (to !== 'delivered' || delivery.payment_method !== 'cod') return {};
  return { cash_collected_aoa: sent ?? Number(delivery.cash_collect_aoa ?? 0) };
}

const StallBody = z
  .strictObject({
    reason: z
      .enum(STALL_REASONS)
      .default('state_timeout')
      .describe('the `delivery.stalled` payload.reason to simulate (default state_timeout)'),
  })
  .meta({ examples: [{ reason: 'state_timeout' }] });

const EmptyBody = z.strictObject({}).meta({ examples: [{}] });

const ALLOWED_FROM = (to: AdvanceTarget) => FLEET_TRANSITIONS[to].from.join(', ');

const notAllowed = (status: Status, detail: string) =>
  new ApiError(409, 'delivery_transition_not_allowed', detail, undefined, undefined, { current_status: status });

const pending = () =>
  new ApiError(
    503,
    'test_helper_pending',
    `The step was passed to the delivery's workflow but not recorded within ${STEP_WAIT_MS / 1000} s; it may still take effect. Read the delivery in a moment.`,
    undefined,
    { 'retry-after': '2' },
  );

type App = Parameters<FastifyPluginAsyncZod<AppDeps>>[0];

/** What the routes of this module share: load, answer, common, responses, testKeysOnly, liveKeys, settledBooking, clockStep. */
function shared(app: App, deps: AppDeps) {
  const { pool, config } = deps;
  // expire_payment_window (and a stall with its default reason) may come without a body.
  parseJsonBodies(app, { allowEmpty: true });

  const load = (scope: Scope, id: string) => loadDelivery(pool, scope, id);
  /** The Delivery a helper answers with. */
  const answer = async (scope: Scope, id: string) => {
    const { delivery, events } = await loadDeliveryWithEvents(pool, scope, id);
    return toDelivery(delivery, events, config.baseUrl);
  };

  const common = {
    tags: ['test_helpers'],
    headers: IdempotencyHeaders,
    params: DeliveryId,
  };
  const responses = { 200: Delivery, ...problems(401, 404, 409, 413, 422, 429, 503) };
  // A live key gets 404 before anything else is looked at (its body included), as for a route that does not exist.
  const testKeysOnly = async (request: FastifyRequest) => {
    if (scopeOf(request).livemode) {
      throw new ApiError(
        404,
        'not_found',
        `No route ${request.method} ${request.url.split('?')[0]} for a live key: test helpers take a test key (sk_test_...).`,
      );
    }
  };
  const liveKeys = ' Test keys only: a live key gets 404, and a live delivery is 404 for a test key.';

  /**
   * The delivery once the booking under way (if any) has settled: polls it until bookingUnderWay says no, for at most
   * BOOKING_WAIT_MS, then answers it as it is, with whether the booking is still under way.
   */
  async function settledBooking(scope: Scope, id: string): Promise<{ delivery: DeliveryRow; underWay: boolean }> {
    const deadline = Date.now() + BOOKING_WAIT_MS;
    for (;;) {
      const { delivery, events } = await loadDeliveryWithEvents(pool, scope, id);
      const underWay = bookingUnderWay(delivery, events);
      if (!underWay || Date.now() > deadline) return { delivery, underWay };
      await sleep(POLL_MS);
    }
  }

  /** stall and expire_payment_window: the workflow's testHelper update, checked against the status first. */
  async function clockStep(scope: Scope, id: string, request: TestHelperRequest) {
    const delivery = await load(scope, id);
    const refusal = testHelperRefusal(delivery.status, request.action);
    if (refusal) throw notAllowed(delivery.status, refusal);
    try {
      await updateDeliveryWorkflow(deps, delivery, testHelperUpdate, request, {
        deadline: Date.now() + STEP_WAIT_MS,
        handlerRejection: TestHelperRejected,
        rowAllows: async () => testHelperRefusal((await load(scope, id)).status, request.action) === null,
        late: pending,
      });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
        const now = await load(scope, delivery.id);
        throw notAllowed(
          now.status,
          testHelperRefusal(now.status, request.action) ?? `The test delivery moved on (now ${now.status}).`,
        );
      }
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || err instanceof ServiceError) throw pending();
      throw err;
    }
    return answer(scope, delivery.id);
  }
  return { load, answer, common, responses, testKeysOnly, liveKeys, settledBooking, clockStep };
}
type Shared = ReturnType<typeof shared>;

/**
 * Waits (bounded) for the fleet event an advance passed on to be recorded, and answers as the step ends: the Delivery,
 * or why the step did not apply (a PIN mismatch, a status reached meanwhile that does not allow it).
 */
/** Whether the step's own consequences are still to come: the failure after the last attempt, the cash's booking. */
async function stepUnderWay(
  scope: Scope,
  deliveryId: string,
  to: string,
  failsNext: boolean,
  load: Shared['load'],
): Promise<boolean> {
  if (!failsNext && to !== 'delivered') return false;
  const now = await load(scope, deliveryId);
  if (failsNext) return now.status !== 'failed';
  return now.payment_method === 'cod' && now.status === 'delivered' && !now.cod_line;
}

async function stepOutcome(
  pool: Pool,
  { load, answer }: Pick<Shared, 'load' | 'answer'>,
  scope: Scope,
  deliveryId: string,
  webhookId: string,
  to: string,
) {
  const deadline = Date.now() + STEP_WAIT_MS;
  for (;;) {
    const event = await eventOfFleetWebhook(pool, deliveryId, webhookId);
    if (event?.payload?.ignored) {
      if (event.payload.reason === 'pin_mismatch') {
        const detail =
          "The PIN does not match the delivery_pin: the delivered event was recorded as ignored (pin_mismatch), as a courier's would be.";
        throw new ApiError(422, 'delivery_pin_mismatch', detail, [
          { pointer: '/pin', code: 'delivery_pin_mismatch', detail },
        ]);
      }
      // It got there by itself meanwhile (the courier's own event came first): the step is done.
      const now = await load(scope, deliveryId);
      if (now.status === to) return answer(scope, deliveryId);
      const status = (event.payload.status as Status | undefined) ?? now.status;
      throw notAllowed(
        status,
        `The test delivery moved to ${status} meanwhile; it cannot advance to ${to} from there.`,
      );
    }
    // The last failed attempt (or a refusal): the step ends with the delivery failed (and its return on its way).
    const failsNext = to === 'attempt_failed' && event?.payload?.attempts_left === 0;
    // A cash-on-delivery delivery's `delivered` step ends with its cash booked (collectCash), so a remittance can follow.
    if (event && !(await stepUnderWay(scope, deliveryId, to, failsNext, load))) return answer(scope, deliveryId);
    if (Date.now() > deadline) throw pending();
    await sleep(POLL_MS);
  }
}

function registerAdvance(
  app: App,
  { pool, temporal, config }: AppDeps,
  { load, answer, common, responses, testKeysOnly, liveKeys, settledBooking }: Shared,
) {
  app.post(
    '/v1/test_helpers/deliveries/:id/advance',
    {
      config: { idempotent: true },
      preValidation: testKeysOnly,
      schema: {
        ...common,
        operationId: 'advanceTestDelivery',
        summary: 'Move a test delivery on, as its courier would',
        description:
          'Runs the fleet-event path a courier uses (POST /v1/fleet/{slug}/events): the same event, status change and webhooks, source `fleet_webhook`. ' +
          'Answers once the event is recorded. `to` must be allowed from the current status (design.md lifecycle: assigned from pending once the ' +
          'courier is booked; pickup_ready from assigned; in_transit from assigned or pickup_ready; out_for_delivery from in_transit; delivered from ' +
          'in_transit or out_for_delivery; failed from any status that is not final; attempt_failed, with a `reason`, from in_transit or ' +
          'out_for_delivery, back to in_transit or, after the last attempt or a refusal, to failed with a return to sender); otherwise 409 delivery_transition_not_allowed with current_status. ' +
          'A booking under way (right after creation, say) is waited for first, up to 5 s; the status the delivery already has answers 200 with it ' +
          'unchanged; failed is taken at any moment, also while the courier is being booked. ' +
          "`delivered` with a courier that requires a PIN (test-pin) needs the delivery's `pin`: a wrong one is recorded as ignored, as a courier's " +
          'would be, and answered 422 delivery_pin_mismatch (five wrong ones stall the delivery).' +
          liveKeys,
        body: AdvanceBody,
        response: responses,
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      const { to, pin, reason, proof, eta_minutes: etaMinutes, cash_collected_aoa: cashSent } = request.body;
      checkAttemptReason(to, reason, '/reason');
      // The booking that follows creation (or payment, a resume, a redispatch) is the courier's business, not a race
      // the caller should lose: wait for it (bounded) so that the step applies to the status it leaves behind.
      const { delivery, underWay } = await settledBooking(scope, request.params.id);
      // Already there (the booking assigned it, test-auto moved it, a retry of this step): nothing to do.
      if (delivery.status === to) return answer(scope, delivery.id);
      const rule = FLEET_TRANSITIONS[to];
      if (!rule.from.includes(delivery.status)) {
        throw notAllowed(
          delivery.status,
          `A test delivery in status ${delivery.status} cannot advance to ${to} (from ${ALLOWED_FROM(to)} only).`,
        );
      }
      // `failed` is taken at any moment: while a booking is still under way the workflow records it once the booking ends.
      if (to !== 'failed' && underWay) {
        throw notAllowed(
          delivery.status,
          `The courier of this test delivery is still being booked after ${BOOKING_WAIT_MS / 1000} s: retry in a moment.`,
        );
      }
      const webhookId = `test_helper_${randomUUID()}`;
      try {
        await ensureDeliveryWorkflow(temporal, pool, config, delivery);
        await passFleetEvent(temporal, delivery, {
          eventType: to,
          occurredAt: new Date().toISOString(),
          payload: {
            note: 'test helper',
            ...(pin !== undefined ? { pin } : {}),
            ...(to === 'attempt_failed' ? { reason } : {}),
            ...(proof ? { proof } : {}),
            ...(etaMinutes !== undefined ? { eta_minutes: etaMinutes } : {}),
            ...testCash(delivery, to, cashSent),
          },
          webhookId,
          companyId: delivery.company_id,
        });
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          const now = await load(scope, delivery.id);
          if (now.status === to) return answer(scope, delivery.id);
          throw notAllowed(now.status, `The test delivery is ${now.status}: it takes no more steps.`);
        }
        throw err;
      }
      return stepOutcome(pool, { load, answer }, scope, delivery.id, webhookId, to);
    },
  );
}

function registerStall(app: App, _deps: AppDeps, { common, responses, testKeysOnly, liveKeys, clockStep }: Shared) {
  app.post(
    '/v1/test_helpers/deliveries/:id/stall',
    {
      config: { idempotent: true },
      preValidation: testKeysOnly,
      schema: {
        ...common,
        operationId: 'stallTestDelivery',
        summary: 'Stall a test delivery, as a state budget running out would',
        description:
          'Records `delivery.stalled` with the given payload.reason (default state_timeout) and previous_status, source `test_helper`, and sends its webhooks. ' +
          'Allowed from pending, assigned, pickup_ready, in_transit and out_for_delivery; otherwise 409 delivery_transition_not_allowed with current_status. ' +
          'A stalled test delivery can still advance to failed.' +
          liveKeys,
        body: StallBody.nullish().meta({ examples: [{ reason: 'state_timeout' }] }),
        response: responses,
      },
    },
    async (request) =>
      clockStep(scopeOf(request), request.params.id, {
        action: 'stall',
        reason: request.body?.reason ?? 'state_timeout',
      }),
  );
}

function registerExpirePaymentWindow(
  app: App,
  _deps: AppDeps,
  { common, responses, testKeysOnly, liveKeys, clockStep }: Shared,
) {
  app.post(
    '/v1/test_helpers/deliveries/:id/expire_payment_window',
    {
      config: { idempotent: true },
      preValidation: testKeysOnly,
      schema: {
        ...common,
        operationId: 'expireTestDeliveryPaymentWindow',
        summary: "End a test delivery's payment window now",
        description:
          'What PAYMENT_WINDOW_MS running out does to a bank_transfer delivery awaiting payment: `delivery.cancelled` with payload.reason ' +
          'payment_timeout (source `test_helper`), and its webhooks. Allowed from awaiting_payment only; otherwise 409 delivery_transition_not_allowed ' +
          'with current_status.' +
          liveKeys,
        body: EmptyBody.nullish().meta({ examples: [{}] }),
        response: responses,
      },
    },
    async (request) => clockStep(scopeOf(request), request.params.id, { action: 'expire_payment_window' }),
  );
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  const s = shared(app, deps);
  registerAdvance(app, deps, s);
  registerStall(app, deps, s);
  registerExpirePaymentWindow(app, deps, s);
};
export default routes;
