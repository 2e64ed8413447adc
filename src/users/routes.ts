// The tenant's dashboard users (docs/dashboard.md): list, invite (a one-time set-password link), change a role,
// send a new link, remove (its sessions end at once). The writes take a dashboard session of an owner
// (plugins/session.ts); a secret key gets 403 session_required on them (plugins/auth.ts, src/users/roles.ts
// sessionOnly), so a leaked key cannot make itself an account. A live secret key may still list the users; a test key
// gets 403 forbidden: users are not test objects.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../platform/deps.js';
import { parseJsonBodies } from '../http/json-body.js';
import { ApiError, notFound } from '../http/problem.js';
import { scopeOf } from '../http/plugins/auth.js';
import { IdParam, problems } from '../http/schemas.js';
import { listUsers } from './repository.js';
import { CreateUserBody, DeletedUser, PasswordLink, UpdateUserBody, User, UserList, UserWithLink } from './schemas.js';
import { toUser } from './views.js';
import { changeRole, createUser, newPasswordLink, removeUser } from './service.js';
import { listRoute } from '../http/route-helpers.js';

const TAG = ['users'];

/** The tenant whose users the request may manage. */
function tenantOf(request: FastifyRequest): string {
  const scope = scopeOf(request);
  if (!request.dashboardSession && !scope.livemode) {
    throw new ApiError(403, 'forbidden', 'Users are listed with a live secret key (sk_live_...), not a test key.');
  }
  return scope.tenantId;
}

type App = Parameters<FastifyPluginAsyncZod<AppDeps>>[0];

function registerListUsers(app: App, { pool }: AppDeps) {
  listRoute(app, '/v1/users', toUser, (request, limit, offset) => listUsers(pool, tenantOf(request), limit, offset), {
    tags: TAG,
    operationId: 'listUsers',
    summary: "List the tenant's dashboard users, oldest first",
    response: { 200: UserList, ...problems(401, 403, 422, 429) },
  });
}

function registerInviteUser(app: App, { pool, config }: AppDeps) {
  app.post(
    '/v1/users',
    {
      schema: {
        tags: TAG,
        operationId: 'createUser',
        summary: 'Invite a dashboard user',
        description:
          'Creates the user with its role and returns a one-time `set_password_url` (shown only here) to send to them. ' +
          'From a dashboard session of an owner only: a secret key gets 403 session_required. ' +
          'Accounts are per tenant: an email that is a user of another tenant gets an account of this one (nothing is said of the other); 409 email_taken when it is a user of this tenant already. Not idempotent: a repeat is 409.',
        body: CreateUserBody,
        response: { 201: UserWithLink, ...problems(401, 403, 409, 413, 422, 429) },
      },
    },
    async (request, reply) => {
      const created = await createUser(pool, config.dashboard, config.baseUrl, {
        tenantId: tenantOf(request),
        ...request.body,
      });
      return reply.code(201).send({
        ...toUser(created.user),
        set_password_url: created.set_password_url,
        set_password_expires_at: created.set_password_expires_at.toISOString(),
      });
    },
  );
}

function registerChangeRole(app: App, { pool }: AppDeps) {
  app.patch(
    '/v1/users/:id',
    {
      schema: {
        tags: TAG,
        operationId: 'updateUser',
        summary: "Change a user's role",
        description:
          'The change applies to the user’s open sessions at once. 409 last_owner for the account’s only owner. ' +
          'From a dashboard session of an owner only: a secret key gets 403 session_required.',
        params: IdParam,
        body: UpdateUserBody,
        response: { 200: User, ...problems(401, 403, 404, 409, 413, 422, 429) },
      },
    },
    async (request) => toUser(await changeRole(pool, tenantOf(request), request.params.id, request.body.role)),
  );
}

function registerPasswordLink(app: App, { pool, config }: AppDeps) {
  app.post(
    '/v1/users/:id/password_link',
    {
      schema: {
        tags: TAG,
        operationId: 'createUserPasswordLink',
        summary: 'A new set-password link for a user',
        description:
          'For a user who lost the first link or their password; earlier links stop working. The password changes, and the user’s sessions end, only when the link is used. ' +
          'From a dashboard session of an owner only: a secret key gets 403 session_required.',
        params: IdParam,
        response: { 200: PasswordLink, ...problems(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const link = await newPasswordLink(pool, config.dashboard, config.baseUrl, tenantOf(request), request.params.id);
      if (!link) throw notFound('User');
      return {
        set_password_url: link.set_password_url,
        set_password_expires_at: link.set_password_expires_at.toISOString(),
      };
    },
  );
}

function registerRemoveUser(app: App, { pool }: AppDeps) {
  app.delete(
    '/v1/users/:id',
    {
      schema: {
        tags: TAG,
        operationId: 'deleteUser',
        summary: 'Remove a dashboard user',
        description:
          'Every session of the user ends at once. 409 last_owner for the account’s only owner. ' +
          'From a dashboard session of an owner only: a secret key gets 403 session_required.',
        params: IdParam,
        response: { 200: DeletedUser, ...problems(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => {
      await removeUser(pool, tenantOf(request), request.params.id);
      return { id: request.params.id, deleted: true as const };
    },
  );
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  parseJsonBodies(app, { allowEmpty: true });
  registerListUsers(app, deps);
  registerInviteUser(app, deps);
  registerChangeRole(app, deps);
  registerPasswordLink(app, deps);
  registerRemoveUser(app, deps);
};
export default routes;
