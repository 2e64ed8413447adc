// Cash on delivery for the merchant (secret key or dashboard session): balances, remittances (record, list, read,
// confirm, dispute, the CSV statement), the remittance terms, and the test helper that remits a test courier's cash.
// Everything per mode, like the rest of test mode. design.md "Cash on delivery"; docs/cash-on-delivery.md.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { scopeOf } from '../http/plugins/auth.js';
import { notFound, validationFailed } from '../http/problem.js';
import { IdParam, problems } from '../http/schemas.js';
import { idempotent } from '../http/route-helpers.js';
import { canBook } from '../couriers/service.js';
import { balances, settle } from './service.js';
import { createRemittance } from './remittances.js';
import { itemsOf, listRemittances, remittanceById, statementLines } from './remittance-repository.js';
import { DEFAULT_TERMS_HOURS, setTerms, termsOf } from './repository.js';
import {
  Balances,
  CodSettings,
  CodSettingsChange,
  DisputeBody,
  MerchantRemittanceBody,
  Remittance,
  RemittanceListQuery,
  RemittancePage,
} from './schemas.js';
import { toRemittance, toStatementCsv } from './views.js';
import { sendCodWebhooks } from './webhooks.js';

const tags = ['cash_on_delivery'];

type App = Parameters<FastifyPluginAsyncZod>[0];

const showWith = (pool: AppDeps['pool']) => async (r: Parameters<typeof toRemittance>[0]) =>
  toRemittance(r, await itemsOf(pool, [r.id]));

/** Whether the caller asks for the CSV statement (Accept names text/csv before, or without, application/json). */
function wantsCsv(accept: string | undefined): boolean {
  const text = (accept ?? '').toLowerCase();
  const csv = text.indexOf('text/csv');
  const json = text.indexOf('application/json');
  return csv >= 0 && (json < 0 || csv < json);
}

function balancesRoute(app: App, { pool }: AppDeps) {
  app.get(
    '/v1/cod/balances',
    {
      schema: {
        tags,
        operationId: 'getCodBalances',
        summary: 'Cash on delivery per courier company: collected, remitted, fees, outstanding, overdue',
        description:
          'outstanding_aoa = collected_aoa - remitted_aoa - fee_deducted_aoa; one line per company with collections.',
        response: { 200: Balances, ...problems(401, 429) },
      },
    },
    async (request) => ({ data: await balances(pool, scopeOf(request)) }),
  );
}

function recordRoute(app: App, deps: AppDeps) {
  const { pool } = deps;
  const show = showWith(pool);
  app.post(
    '/v1/cod/remittances',
    idempotent({
      tags,
      operationId: 'createCodRemittance',
      summary: 'Record cash a courier handed over in person (status confirmed)',
      description:
        "Same rules as a courier's report: each item's amount_aoa + fee_deducted_aoa equals the cash collected " +
        '(422 remittance_amount_mismatch), the fee at most the locked fee, an item already in a remittance 422 already_remitted. ' +
        'Items name deliveries of company_id by tracking_ref or delivery_id.',
      body: MerchantRemittanceBody,
      response: { 201: Remittance, ...problems(401, 409, 422, 429) },
    }),
    async (request, reply) => {
      const body = request.body;
      const byId = body.items.map((i) => i.delivery_id !== undefined);
      const errors = body.items.flatMap((i, n) =>
        (i.delivery_id === undefined) === (i.tracking_ref === undefined) || byId[n] !== byId[0]
          ? [
              {
                pointer: `/items/${n}`,
                code: 'invalid' as const,
                detail: `items/${n}: name the delivery by tracking_ref or delivery_id, the same in every item.`,
              },
            ]
          : [],
      );
      if (errors.length) throw validationFailed(errors);
      const outcome = await createRemittance(pool, {
        source: 'merchant',
        companyId: body.company_id,
        scope: scopeOf(request),
        remittanceRef: null,
        paidAt: body.paid_at,
        method: body.method,
        bankReference: body.bank_reference ?? null,
        items: body.items,
      });
      sendCodWebhooks(deps, outcome.messages, request.log);
      return reply.code(201).send(await show(outcome.remittance));
    },
  );
}

function listRoute(app: App, { pool }: AppDeps) {
  app.get(
    '/v1/cod/remittances',
    {
      schema: {
        tags,
        operationId: 'listCodRemittances',
        summary: 'Remittances, newest first; with Accept: text/csv the statement of the filtered period',
        description:
          'Filters: company_id, status, created_at_gte, created_at_lt. With `Accept: text/csv` the answer is the statement: ' +
          'one line per remitted delivery of every matching remittance (oldest first, pagination ignored), amounts in ' +
          'centavos, and a total line.',
        querystring: RemittanceListQuery,
        response: {
          200: {
            description: 'A page of remittances, or the CSV statement',
            content: {
              'application/json': { schema: RemittancePage },
              'text/csv': {
                schema: z.string().meta({
                  examples: [
                    'remittance_id,remittance_ref,created_at,paid_at,company_id,company_name,status,method,bank_reference,delivery_id,delivery_reference,tracking_ref,amount_aoa,fee_deducted_aoa\r\n' +
                      '5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e,KX-REM-0042,2026-11-24T17:31:02.000Z,2026-11-24T17:30:00.000Z,c0a8012e-7b1f-4c2d-9e3f-5a6b7c8d9e0f,Kianda Express,confirmed,bank_transfer,BAI-TRF-77812,7d9f8e6a-1b2c-4d3e-8f4a-5b6c7d8e9f0a,DLV-7KQ2M9XW4P,KX-20261123-0042,1400000,100000\r\n' +
                      'total,,,,,,,,,,,,1400000,100000\r\n',
                  ],
                }),
              },
            },
          },
          ...problems(401, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const filter = {
        companyId: q.company_id,
        status: q.status,
        createdGte: q.created_at_gte ? new Date(q.created_at_gte) : undefined,
        createdLt: q.created_at_lt ? new Date(q.created_at_lt) : undefined,
      };
      const scope = scopeOf(request);
      if (wantsCsv(request.headers.accept)) {
        const csv = toStatementCsv(await statementLines(pool, scope, filter));
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="cod-statement.csv"')
          .send(csv);
      }
      const { rows, hasMore } = await listRemittances(pool, scope, filter, q.limit, q.offset);
      const items = await itemsOf(
        pool,
        rows.map((r) => r.id),
      );
      return {
        data: rows.map((r) => toRemittance(r, items)),
        pagination: { limit: q.limit, offset: q.offset, has_more: hasMore },
      };
    },
  );
}

function readRoutes(app: App, { pool }: AppDeps) {
  const show = showWith(pool);
  app.get(
    '/v1/cod/remittances/:id',
    {
      schema: {
        tags,
        operationId: 'getCodRemittance',
        summary: 'One remittance',
        params: IdParam,
        response: { 200: Remittance, ...problems(401, 404, 429) },
      },
    },
    async (request) => {
      const r = await remittanceById(pool, scopeOf(request), request.params.id);
      if (!r) throw notFound('Remittance');
      return show(r);
    },
  );

  app.post(
    '/v1/cod/remittances/:id/confirm',
    idempotent({
      tags,
      operationId: 'confirmCodRemittance',
      summary: "Confirm a courier's reported remittance: the cash arrived",
      description: 'Only a reported remittance: 409 remittance_not_reported otherwise.',
      params: IdParam,
      response: { 200: Remittance, ...problems(401, 404, 409, 422, 429) },
    }),
    async (request) => {
      const r = await settle(pool, scopeOf(request), request.params.id, { status: 'confirmed' });
      if (!r) throw notFound('Remittance');
      return show(r);
    },
  );
}

function disputeRoute(app: App, { pool }: AppDeps) {
  const show = showWith(pool);
  app.post(
    '/v1/cod/remittances/:id/dispute',
    idempotent({
      tags,
      operationId: 'disputeCodRemittance',
      summary: "Dispute a courier's reported remittance: the cash did not arrive as reported",
      description:
        'Only a reported remittance: 409 remittance_not_reported otherwise. Its items become outstanding again (the ' +
        'courier owes their cash, and may report them in a new remittance).',
      params: IdParam,
      body: DisputeBody,
      response: { 200: Remittance, ...problems(401, 404, 409, 422, 429) },
    }),
    async (request) => {
      const reason = request.body.reason;
      const r = await settle(pool, scopeOf(request), request.params.id, { status: 'disputed', reason });
      if (!r) throw notFound('Remittance');
      return show(r);
    },
  );
}

function settingsRoutes(app: App, { pool }: AppDeps) {
  const settingsOf = async (tenantId: string) => ({
    default_remittance_terms_hours: DEFAULT_TERMS_HOURS,
    remittance_terms: (await termsOf(pool, tenantId)).map((t) => ({
      company_id: t.company_id,
      remittance_terms_hours: t.terms_hours,
    })),
  });

  app.get(
    '/v1/settings/cod',
    {
      schema: {
        tags: ['settings'],
        operationId: 'getCodSettings',
        summary: 'Cash on delivery settings: the remittance terms per courier company',
        response: { 200: CodSettings, ...problems(401, 429) },
      },
    },
    async (request) => settingsOf(scopeOf(request).tenantId),
  );

  app.put(
    '/v1/settings/cod',
    {
      schema: {
        tags: ['settings'],
        operationId: 'updateCodSettings',
        summary: "Set a courier company's remittance terms (hours; null: the default 48)",
        description:
          'Applies to cash collected from now on (each collection keeps the due time it was collected with). The company ' +
          "must be one the tenant can book in the key's mode (422 not_allowed).",
        body: CodSettingsChange,
        response: { 200: CodSettings, ...problems(401, 422, 429) },
      },
    },
    async (request) => {
      const { tenantId, livemode } = scopeOf(request);
      const { company_id: companyId, remittance_terms_hours: hours } = request.body;
      if (!(await canBook(pool, tenantId, companyId, livemode))) {
        const detail = 'company_id is not a courier company this account can book in this mode.';
        throw validationFailed([{ pointer: '/company_id', code: 'not_allowed', detail }]);
      }
      await setTerms(pool, tenantId, companyId, hours);
      return settingsOf(tenantId);
    },
  );
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  balancesRoute(app, deps);
  recordRoute(app, deps);
  listRoute(app, deps);
  readRoutes(app, deps);
  disputeRoute(app, deps);
  settingsRoutes(app, deps);
};
export default routes;
