// What a dashboard user's role lets it do, in one table (docs/dashboard.md "Roles"). Roles are ordered:
//   viewer     reads everything of its tenant but the user list
//   developer  and changes: deliveries (quote, create, cancel), webhook endpoints, test-mode keys and settings
//   owner      and users, live keys and live settings, and the shop profile (the account's, for both modes)
// plugins/session.ts checks every /v1 request made with a session against requiredRole(); the dashboard hides what
// the role does not allow (web/dashboard), and the API refuses it anyway (403 forbidden). A secret key is not a
// user: it may do everything of its own mode but the writes of sessionOnly() (users and key issuance), which only a
// dashboard session may make (plugins/auth.ts: 403 session_required), so a leaked key cannot outlive its rotation.

export const ROLES = ['viewer', 'developer', 'owner'] as const;
export type Role = (typeof ROLES)[number];

const rank = (role: Role) => ROLES.indexOf(role);

/** True when `role` is `needed` or above it. */
export const roleAllows = (role: Role, needed: Role): boolean => rank(role) >= rank(needed);

const READS = new Set(['GET', 'HEAD']);

/**
 * The least role a session needs for this request: `route` is the matched route pattern (e.g.
 * `/v1/api_keys/:id/revoke`), `livemode` the mode the dashboard is in.
 */
export function requiredRole(method: string, route: string, livemode: boolean): Role {
  if (route === '/v1/users' || route.startsWith('/v1/users/')) return 'owner';
  if (READS.has(method)) return 'viewer';
  // The shop profile is the account's, shown for live and test deliveries alike: not a test-mode setting.
  if (route === '/v1/settings/shop') return 'owner';
  if (route === '/v1/api_keys' || route.startsWith('/v1/api_keys/') || route.startsWith('/v1/settings/'))
    return livemode ? 'owner' : 'developer';
  return 'developer';
}

/**
 * True for the writes that take a dashboard session and never a secret key (design.md "Team and keys"): inviting,
 * changing and removing users and sending password links (`/v1/users...`), and creating, changing (allowed origins)
 * and revoking API keys (`/v1/api_keys...`). `route` is the matched route pattern. Reads stay open to secret keys.
 */
export function sessionOnly(method: string, route: string): boolean {
  if (READS.has(method)) return false;
  return (
    route === '/v1/users' ||
    route.startsWith('/v1/users/') ||
    route === '/v1/api_keys' ||
    route.startsWith('/v1/api_keys/')
  );
}
