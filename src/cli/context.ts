// What every command group of the admin command line shares: its connections, its output, the usage errors and
// the option parsers.
import { InvalidArgumentError, Option } from 'commander';
import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config.js';
import { courierById, courierBySlug, type CourierRow } from '../couriers/repository.js';
import type { Pool } from '../platform/db.js';
import { ApiError } from '../http/problem.js';
import { normaliseOrigin } from '../keys/service.js';
import { isUuid } from '../platform/uuid.js';

/** A usage mistake: printed as one line, exit code 2. */
export class UsageError extends Error {}
/** The workflow ignored an operator's action (it records why): printed as one line, exit code 3. */
export class IgnoredError extends Error {}

/** The connections a command may use, opened on first use, and where it prints. */
export interface CliContext {
  getPool: () => Pool;
  getTemporal: () => Promise<Client>;
  getConfig: () => Config;
  /** The value as one JSON line with --json, else the text for people. */
  print: (json: boolean, value: unknown, human: string) => void;
}

/** A refusal of a domain service (email taken, last owner, not a company the tenant can book...) as a usage error. */
export async function asUsage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) throw new UsageError(err.detail);
    throw err;
  }
}

const origin = (value: string, previous: string[] = []) => {
  try {
    return [...previous, normaliseOrigin(value)];
  } catch {
    throw new InvalidArgumentError(`"${value}" is not an origin (expected scheme://host[:port]).`);
  }
};
/** --allowed-origin, repeatable: the origins given, normalised. */
export const allowedOrigins = (description: string) =>
  new Option('--allowed-origin <origin>', description).default([]).argParser(origin);
export const int = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`"${value}" is not a non-negative whole number.`);
  return Number(value);
};
export const text = (value: string) => {
  if (!value.trim()) throw new InvalidArgumentError('It must not be empty.');
  return value.trim();
};
export const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
export const uuid = (value: string) => {
  if (!isUuid(value)) throw new InvalidArgumentError(`"${value}" is not a UUID.`);
  return value;
};

/** A courier company named by its id or its slug, or a usage error. */
export async function courierNamed(pool: Pool, idOrSlug: string): Promise<CourierRow> {
  const row = isUuid(idOrSlug) ? await courierById(pool, idOrSlug) : await courierBySlug(pool, idOrSlug);
  if (!row) throw new UsageError(`No courier with ${isUuid(idOrSlug) ? 'id' : 'slug'} "${idOrSlug}".`);
  return row;
}
