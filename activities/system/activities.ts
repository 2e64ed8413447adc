// The diagnostic round trip's activity (src/system/repository.ts writes the row).
import type { Pool } from '../../src/platform/db.js';
import { writePing } from '../../src/system/repository.js';

export function createSystemActivities(pool: Pool) {
  return {
    async writePing(input: { id: string; message: string }): Promise<{ id: string; written_at: string }> {
      return writePing(pool, input);
    },
  };
}
export type SystemActivities = ReturnType<typeof createSystemActivities>;
