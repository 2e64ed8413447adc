// A diagnostic round trip through every component: API -> Temporal -> worker -> activity -> Postgres.
// For operators only: it takes the ADMIN_TOKEN (never a merchant key) and does not exist when ADMIN_TOKEN is unset.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { problems } from '../http/schemas.js';
import type { pingWorkflow } from '../../workflows/system/workflows.js';

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { temporal, config }) => {
  if (!config.adminToken) return;
  app.post(
    '/v1/diagnostics/round_trip',
    {
      config: { auth: 'operator' },
      schema: {
        // Not part of the merchants' API reference.
        hide: true,
        tags: ['system'],
        operationId: 'roundTrip',
        summary: 'Runs a workflow that writes through an activity to Postgres, and waits for it',
        response: {
          200: z.object({ id: z.uuid(), workflow_id: z.string(), written_at: z.string() }),
          ...problems(401, 429),
        },
      },
    },
    async (request) => {
      const id = randomUUID();
      const workflowId = `ping-${id}`;
      const result = await temporal.workflow.execute<typeof pingWorkflow>('pingWorkflow', {
        taskQueue: config.taskQueue,
        workflowId,
        args: [{ id, message: `round trip from ${request.id}` }],
        workflowExecutionTimeout: '30s',
      });
      return { id: result.id, workflow_id: workflowId, written_at: result.written_at };
    },
  );
};
export default routes;
