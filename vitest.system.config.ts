import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/** Tests that need system packages (Debian `chromium`): `npm run test:system`. Same aliases as npm test. */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/system/**/*.test.ts'],
    exclude: configDefaults.exclude,
    testTimeout: 60_000,
  },
});
