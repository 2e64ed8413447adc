// The dashboard talks to the same /v1 routes as a merchant's server, through the typed client generated from the
// OpenAPI document (clients/typescript), authorised by the session cookie instead of a key: every call sends the
// session's CSRF token and the mode (live or test). Only sign-in, sign-out and the password link use the
// dashboard's own routes (/dashboard/api/*).
import { createClient, type components, type Problem } from '../../../clients/typescript/src/index';

export type { Delivery, Problem, QuoteEntry } from '../../../clients/typescript/src/index';
export type ApiKey = components['schemas']['ApiKey'];
export type User = components['schemas']['User'];
export type Role = User['role'];

export interface Session {
  user: { id: string; email: string; role: Role };
  tenant: { id: string; name: string };
  csrf_token: string;
  expires_at: string;
}

/** A problem+json answer (or a network failure, status 0) as an error to throw and show. */
export class ApiProblem extends Error {
  constructor(readonly problem: Pick<Problem, 'status' | 'detail'> & Partial<Problem>) {
    super(problem.detail);
  }
  get status() {
    return this.problem.status;
  }
}

let csrfToken: string | null = null;
let mode: 'live' | 'test' = 'live';
let onSessionEnded: (detail: string) => void = () => {};

export const setCsrfToken = (token: string | null) => (csrfToken = token);
export const setMode = (value: 'live' | 'test') => (mode = value);
/** Called when a call answers 401: the session expired or was ended (signed out elsewhere, user removed). */
export const handleSessionEnded = (fn: (detail: string) => void) => (onSessionEnded = fn);

export const NETWORK_ERROR = 'network';

export const api = createClient({
  baseUrl: location.origin,
  maxRetries: 1,
  fetch: (request) => {
    if (csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    request.headers.set('Dashboard-Mode', mode);
    return fetch(request);
  },
});

/** The data of a client call, or throws ApiProblem; a 401 also ends the session in the app. */
export async function call<T>(promise: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await promise;
  } catch {
    throw new ApiProblem({ status: 0, detail: NETWORK_ERROR });
  }
  if (result.error !== undefined || !result.response.ok) {
    const problem = (result.error ?? {}) as Partial<Problem>;
    const error = new ApiProblem({
      ...problem,
      status: result.response.status,
      detail: problem.detail ?? result.response.statusText,
    });
    if (result.response.status === 401) onSessionEnded(error.problem.detail);
    throw error;
  }
  return result.data as T;
}

async function own<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/dashboard/api/${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(csrfToken ? { 'x-csrf-token': csrfToken } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiProblem({ status: 0, detail: NETWORK_ERROR });
  }
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!response.ok)
    throw new ApiProblem({ ...(parsed ?? {}), status: response.status, detail: parsed?.detail ?? response.statusText });
  return parsed as T;
}

export const currentSession = () => own<Session>('GET', 'session');
/** The teams an email and password open when there are several: sign in again naming one (`tenantId`). */
export interface TeamChoice {
  tenants: Array<{ id: string; name: string }>;
}
export const signIn = (email: string, password: string, tenantId?: string) =>
  own<Session | TeamChoice>('POST', 'session', { email, password, ...(tenantId ? { tenant_id: tenantId } : {}) });
export const signOut = () => own<null>('DELETE', 'session');
export const setPassword = (token: string, password: string) => own<null>('POST', 'password', { token, password });
