import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pingDatabase } from '../platform/db.js';
import type { AppDeps } from '../platform/deps.js';
import { ApiError } from '../http/problem.js';
import { problems } from '../http/schemas.js';

const Health = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.record(z.string(), z.enum(['ok', 'unavailable'])).optional(),
  })
  .meta({ examples: [{ status: 'ok', checks: { postgres: 'ok', temporal: 'ok' } }] });

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { pool, temporal }) => {
  const common = { config: { auth: 'none' as const } };
  app.get(
    '/healthz',
    {
      ...common,
      schema: {
        tags: ['system'],
        operationId: 'health',
        summary: 'The process is up',
        security: [],
        response: { 200: Health },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      ...common,
      schema: {
        tags: ['system'],
        operationId: 'readiness',
        summary: 'Postgres and Temporal are reachable',
        security: [],
        response: { 200: Health, ...problems(503) },
      },
    },
    async (_request, reply) => {
      const check = (p: Promise<unknown>) =>
        Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000))]).then(
          () => 'ok' as const,
          () => 'unavailable' as const,
        );
      const [postgres, temporalCheck] = await Promise.all([
        check(pingDatabase(pool)),
        check(temporal.workflowService.getSystemInfo({})),
      ]);
      if (postgres !== 'ok' || temporalCheck !== 'ok') {
        throw new ApiError(503, 'not_ready', `Not ready: postgres ${postgres}, temporal ${temporalCheck}.`);
      }
      return reply.send({ status: 'ok' as const, checks: { postgres, temporal: temporalCheck } });
    },
  );
};
export default routes;
