// Request and response schemas of /v1/users (OpenAPI through the zod type provider) and of the dashboard's own
// routes (src/dashboard/routes.ts, hidden from the document), and the shape a user leaves the API in.
import { z } from 'zod';
import { Timestamp, Uri } from '../http/schemas.js';
import { Pagination } from '../http/schemas.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.js';
import { ROLES } from './roles.js';

const EXAMPLE_USER = {
  id: '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
  email: 'ana@loja-kianda.ao',
  role: 'developer',
  status: 'active',
  created_at: '2026-11-23T09:15:04.218Z',
  last_sign_in_at: '2026-11-23T10:02:11.408Z',
};
const EXAMPLE_LINK = {
  set_password_url: 'https://api.example.ao/dashboard/set-password#token=Q2hhdmUtZGUtZXhlbXBsby1kZS0zMi1ieXRlcw',
  set_password_expires_at: '2026-11-26T09:15:04.218Z',
};

const Role = z
  .enum(ROLES)
  .describe('viewer: reads; developer: also deliveries, webhooks, test keys; owner: also users and live keys');

export const User = z
  .object({
    id: z.uuid(),
    email: z.string(),
    role: Role,
    status: z.enum(['invited', 'active']).describe('invited: the set-password link has not been used yet'),
    created_at: Timestamp,
    last_sign_in_at: Timestamp.nullable(),
  })
  .meta({ id: 'User', examples: [EXAMPLE_USER] });

const LinkFields = {
  set_password_url: Uri.describe(
    'One-time link to the dashboard page that sets the password; shown only in this response. Send it to the user; it works once, until set_password_expires_at.',
  ),
  set_password_expires_at: Timestamp,
};

export const UserWithLink = User.extend(LinkFields).meta({
  id: 'UserWithLink',
  examples: [{ ...EXAMPLE_USER, status: 'invited', last_sign_in_at: null, ...EXAMPLE_LINK }],
});

export const UserList = z
  .object({ data: z.array(User), pagination: Pagination })
  .meta({ examples: [{ data: [EXAMPLE_USER], pagination: { limit: 50, offset: 0, has_more: false } }] });

export const CreateUserBody = z
  .strictObject({ email: z.string().trim().min(3).max(254), role: Role })
  .meta({ examples: [{ email: 'ana@loja-kianda.ao', role: 'developer' }] });

export const UpdateUserBody = z.strictObject({ role: Role }).meta({ examples: [{ role: 'viewer' }] });

export const DeletedUser = z
  .object({ id: z.uuid(), deleted: z.literal(true) })
  .meta({ examples: [{ id: EXAMPLE_USER.id, deleted: true }] })
  .describe('The user and every session it had are gone.');

export const PasswordLink = z.object(LinkFields).meta({ examples: [EXAMPLE_LINK] });

// --- the dashboard's own routes (not in the OpenAPI document) ---

export const SignInBody = z.strictObject({
  email: z.string().max(254),
  password: z.string().max(PASSWORD_MAX_LENGTH),
  /** The team to sign in to, when the email and password open accounts in several (the first answer listed them). */
  tenant_id: z.uuid().optional(),
});

export const SetPasswordBody = z.strictObject({
  token: z.string().min(1).max(200),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `use at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH, `use at most ${PASSWORD_MAX_LENGTH} characters`),
});
