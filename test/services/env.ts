/** The services the suite runs on: the machine's by default, others through the environment. */
export const DATABASE_URL = process.env.HUBOS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.HUBOS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** A name no other test file uses, for a schema, a key prefix or a queue. */
export function uniqueName(base: string): string {
  return `${base}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}
