import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * The install matrix (`npm run test:install`): the packed tarball in a fresh app on each Node.js
 * line HubOS declares. Each version installs packages and a Node.js: one file, versions in turn.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/install/**/*.test.ts'],
    exclude: configDefaults.exclude,
    testTimeout: 900_000,
    hookTimeout: 900_000,
  },
});
