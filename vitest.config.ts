import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Config files and plugin fixtures import 'hubos' as users do; in the repo that is the source.
    alias: [
      { find: /^hubos$/, replacement: here('./core/index.ts') },
      { find: /^hubos\/plugins$/, replacement: here('./plugins/index.ts') },
      { find: /^hubos\/server$/, replacement: here('./plugins/hubos/server.ts') },
      { find: /^hubos\/testing$/, replacement: here('./testing/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Tests that need system packages (Chromium) run in `npm run test:system`; those on PostgreSQL
    // and Redis in `npm run test:services`; the MCP conformance suite in `npm run test:conformance`;
    // the install matrix over Node.js versions in `npm run test:install`.
    exclude: [
      ...configDefaults.exclude,
      'test/system/**',
      'test/services/**',
      'test/conformance/**',
      'test/install/**',
    ],
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
});
