// The workflow's updates besides cancel: the payment confirmation and the test helpers. Each has a validator (a
// refusal leaves nothing in the history) and checks again under the lock, against the status of the moment.
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import {
  PaymentConfirmationRejected,
  TestHelperRejected,
  confirmPaymentUpdate,
  testHelperUpdate,
  type TestHelperRequest,
} from '../../../shared/deliveries/definitions.js';
import { allows, testHelperRefusal } from '../../../shared/deliveries/state-table.js';
import type { Delivery } from '../delivery.js';
import { stallPayload } from '../effects/stall.js';
import { apply } from '../transitions.js';
import { accepted } from './accepted.js';

export function setPaymentHandler(d: Delivery): void {
  const refusal = () =>
    allows('payment_confirmed', d.state.status) ? null : `The delivery is ${d.state.status}, not awaiting payment.`;
  setHandler(
    confirmPaymentUpdate,
    async (request) => {
      await accepted();
      return d.lock.runExclusive(async () => {
        const refused = refusal();
        if (refused) throw ApplicationFailure.nonRetryable(refused, PaymentConfirmationRejected);
        await apply(d, 'payment_confirmed', { payload: {}, source: request.source });
        return { status: d.state.status };
      });
    },
    {
      validator: (_request: { source?: string }) => {
        const refused = refusal();
        if (refused) throw new Error(refused);
      },
    },
  );
}

// The test helpers stall and expire_payment_window (docs/test-mode.md): at once, what a state budget or the payment
// window does when it runs out (the events a merchant's integration must handle), recorded with source
// `test_helper`. The API offers them for test deliveries only.
export function setTestHelperHandler(d: Delivery): void {
  setHandler(
    testHelperUpdate,
    async (request) => {
      await accepted();
      return d.lock.runExclusive(async () => {
        const refusal = testHelperRefusal(d.state.status, request.action);
        if (refusal) throw ApplicationFailure.nonRetryable(refusal, TestHelperRejected, { status: d.state.status });
        if (request.action === 'expire_payment_window')
          await apply(d, 'test.expire_payment_window', { payload: stallPayload(d, 'payment_timeout') });
        else await apply(d, 'test.stall', { payload: stallPayload(d, request.reason) });
        return { status: d.state.status };
      });
    },
    {
      validator: (request: TestHelperRequest) => {
        const refusal = testHelperRefusal(d.state.status, request.action);
        if (refusal) throw new Error(refusal);
      },
    },
  );
}
