// The tenant's settings, with the secret key: GET/PUT /v1/settings/dispatch (automatic failover, docs/deliveries.md).
// Per mode, like everything of test mode (docs/test-mode.md): a test key reads and changes the test policy, which test
// deliveries take; a live key the live one. A test key can neither see nor change the live policy.
// And GET/PUT /v1/settings/shop (src/tenants/shop-profile.ts): the shop profile is the account's, one for both modes,
// so any key or session reads it and only a live secret key or an owner's session changes it.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../platform/deps.js';
import { scopeOf } from '../http/plugins/auth.js';
import { problems } from '../http/schemas.js';
import { ApiError, notFound } from '../http/problem.js';
import { DispatchPolicy, DispatchPolicyChange } from './dispatch-policy.js';
import { dispatchPolicyOf, tenantPageSettingsOf } from './repository.js';
import { changeDispatchPolicy, changePageSettings } from './service.js';
import { ShopProfile, ShopProfileChange } from './shop-profile.js';

type App = Parameters<FastifyPluginAsyncZod<AppDeps>>[0];

function shopRoutes(app: App, { pool }: AppDeps) {
  app.get(
    '/v1/settings/shop',
    {
      schema: {
        tags: ['settings'],
        operationId: 'getShopProfile',
        summary: 'The shop profile: the name and help contact recipients see on the tracking page',
        description:
          "One per account, for both modes: the tracking page and the recipients' SMS show it for live and test deliveries. " +
          'Any secret key (live or test) or dashboard session reads it.',
        response: { 200: ShopProfile, ...problems(401, 429) },
      },
    },
    async (request) => {
      const profile = await tenantPageSettingsOf(pool, scopeOf(request).tenantId);
      if (!profile) throw notFound();
      return profile;
    },
  );

  app.put(
    '/v1/settings/shop',
    {
      schema: {
        tags: ['settings'],
        operationId: 'updateShopProfile',
        summary: 'Change the shop profile',
        description:
          'Changes the fields sent (trimmed); an empty string or null clears one; the others keep their values. The profile is ' +
          "the account's, shown for live and test deliveries, so it takes a live secret key or an owner's dashboard session (in " +
          'either mode): a test key, or the session of a developer or viewer, gets 403 forbidden. A help contact that is not ' +
          'one is 422 validation_failed, each at its pointer.',
        body: ShopProfileChange,
        response: { 200: ShopProfile, ...problems(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { tenantId, livemode } = scopeOf(request);
      // A session's role was checked by src/users/session-plugin.ts (roles.ts: owner); a key must be a live one.
      if (!request.dashboardSession && !livemode) {
        throw new ApiError(
          403,
          'forbidden',
          "The shop profile is the account's, shown for live and test deliveries: change it with a live secret key or from " +
            "an owner's dashboard session, not with a test key.",
        );
      }
      const saved = await changePageSettings(pool, tenantId, request.body);
      if (!saved) throw notFound();
      return saved;
    },
  );
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  const { pool } = deps;
  shopRoutes(app, deps);
  app.get(
    '/v1/settings/dispatch',
    {
      schema: {
        tags: ['settings'],
        operationId: 'getDispatchPolicy',
        summary: 'The dispatch policy: automatic failover to another courier before pickup',
        response: { 200: DispatchPolicy, ...problems(401, 429) },
      },
    },
    async (request) => {
      const { tenantId, livemode } = scopeOf(request);
      return dispatchPolicyOf(pool, tenantId, livemode);
    },
  );

  app.put(
    '/v1/settings/dispatch',
    {
      schema: {
        tags: ['settings'],
        operationId: 'updateDispatchPolicy',
        summary: 'Change the dispatch policy',
        description:
          'Changes the fields sent; the others keep their values. Deliveries take the policy in effect when they are created. ' +
          'Each mode has its own policy: a test key changes the one of test deliveries, a live key the one of live deliveries. ' +
          "Every preferred company must be one the tenant can book in the key's mode (422 not_allowed otherwise).",
        body: DispatchPolicyChange,
        response: { 200: DispatchPolicy, ...problems(401, 422, 429) },
      },
    },
    async (request) => {
      const { tenantId, livemode } = scopeOf(request);
      return changeDispatchPolicy(pool, tenantId, livemode, request.body);
    },
  );
};
export default routes;
