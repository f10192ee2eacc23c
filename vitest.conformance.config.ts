import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * The official MCP conformance suite against HubOS's server and client (`npm run test:conformance`,
 * part of `npm test`): the files run one at a time, after the rest, so the suite's timing checks
 * (how long a client waits before reconnecting) measure HubOS, not a machine busy with other tests.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/conformance/**/*.test.ts'],
    exclude: configDefaults.exclude,
    testTimeout: 300_000,
    fileParallelism: false,
  },
});
