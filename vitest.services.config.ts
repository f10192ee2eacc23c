import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * Tests on the real PostgreSQL and Redis services (`npm run test:services`): HUBOS_TEST_DATABASE_URL
 * and HUBOS_TEST_REDIS_URL, else the local defaults. They fail, not skip, when a service is unreachable.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/services/**/*.test.ts'],
    exclude: configDefaults.exclude,
    testTimeout: 60_000,
    // One PostgreSQL and one Redis for every file: files run one at a time so they do not race on them.
    fileParallelism: false,
  },
});
