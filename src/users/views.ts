// The shape a dashboard user leaves the API in (the `User` schema of schemas.ts), like src/deliveries/views.ts.
import type { UserRow } from './repository.js';

/** An invited user has no password until they accept the invitation. */
function userStatus(row: UserRow) {
  return row.password_hash ? ('active' as const) : ('invited' as const);
}

export function toUser(row: UserRow) {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: userStatus(row),
    created_at: row.created_at.toISOString(),
    last_sign_in_at: row.last_sign_in_at?.toISOString() ?? null,
  };
}
