// The maintenance purge's one activity: delete one bounded batch of one kind of expired rows
// (the deletes are in src/maintenance/repository.ts).
import type { Config } from '../../src/platform/config.js';
import type { Pool } from '../../src/platform/db.js';
import { purgeBatch } from '../../src/maintenance/repository.js';
import type { PurgeBatchResult, PurgeKind } from '../../shared/maintenance/definitions.js';

export function createMaintenanceActivities(deps: { config: Config; pool: Pool }) {
  const { config, pool } = deps;
  return {
    /** Deletes at most PURGE_BATCH_SIZE expired rows of `kind` in one short statement. */
    async purgeBatch(kind: PurgeKind): Promise<PurgeBatchResult> {
      return purgeBatch(pool, config, kind);
    },
  };
}
export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
