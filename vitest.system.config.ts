import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Tests that need system packages (Debian `chromium`): `npm run test:system`. */
export default defineConfig({
  resolve: {
    // Config files and plugin fixtures import 'hubos' as users do; in the repo that is the source.
    alias: [
      { find: /^hubos$/, replacement: here('./core/index.ts') },
      { find: /^hubos\/plugins$/, replacement: here('./plugins/index.ts') },
      { find: /^hubos\/testing$/, replacement: here('./testing/index.ts') },
    ],
  },
  test: {
    include: ['test/system/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
