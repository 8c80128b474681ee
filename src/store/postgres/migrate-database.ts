import { migrate, type MigrationOutcome } from './migrations.ts';
import { openPool } from './pool.ts';
import { explainOpenFailure } from './open-failures.ts';

/** Brings the database's schema to this build's version and disconnects (what `tms migrate` runs). */
export async function migrateDatabase(url: string): Promise<MigrationOutcome> {
  const pool = openPool({ url });
  try {
    return await migrate(pool, 'public');
  } catch (error) {
    throw explainOpenFailure(error, url);
  } finally {
    await pool.end();
  }
}
