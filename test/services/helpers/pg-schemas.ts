import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { PostgresStore } from '../../../core/store/postgres.ts';
import { DATABASE_URL, uniqueName } from '../env.ts';

/**
 * Schemas of a test file's own (`<name>_<n>`), each dropped after the file with the stores opened
 * on it, and an admin connection to write what a previous release left in one.
 */
export function pgSchemas(name: string) {
  const base = uniqueName(name);
  const schemas: string[] = [];
  const stores: PostgresStore[] = [];
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  beforeAll(() => admin.connect());
  afterAll(async () => {
    for (const store of stores) await store.close();
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  /** A store on `schema`, closed after the file. */
  async function open(schema: string): Promise<PostgresStore> {
    const store = await PostgresStore.open(DATABASE_URL, { schema });
    stores.push(store);
    return store;
  }
  /** A new schema's name, dropped after the file. */
  function newSchema(): string {
    const schema = `${base}_${schemas.length + 1}`;
    schemas.push(schema);
    return schema;
  }
  return { admin, open, newSchema };
}
