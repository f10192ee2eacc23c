// The package's types as a user compiles them: the packed tarball installed in a project checked
// by TypeScript with `strict`, `exactOptionalPropertyTypes` and `module: nodenext`. A plugin file
// types a config key and a service with `declare module 'hubos'`; that must hold whether the
// compiler reads that file before the file using them or after it.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, expectOk, npm, packedHubos } from '../helpers/packed-hubos.ts';
import { ROOT, run, tempDir, writeFiles } from '../helpers/run.ts';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** A third-party plugin module: it types its config key and its service by augmenting 'hubos'. */
const BILLING = `import { definePlugin } from 'hubos';

export interface Billing {
  charge(cents: number): string;
}

declare module 'hubos' {
  interface HubosConfig {
    billing?: { currency: 'EUR' | 'USD'; vat?: number };
  }
  interface HubosServices {
    billing: Billing;
  }
}

export const billing = definePlugin({
  name: 'billing',
  provides: ['billing'],
  apply(kernel) {
    const currency = kernel.config.billing?.currency ?? 'EUR';
    kernel.provide('billing', { charge: (cents) => \`\${cents / 100} \${currency}\` });
  },
});
`;

/** Uses what billing.ts declares without importing it: only the augmentation brings the types in. */
const USE = `import { createKernel, defineConfig, definePlugin, type HubosConfig, type ServiceOf } from 'hubos';
import { type Cosmos, cosmos, getCosmosHooks } from 'hubos/plugins';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

// A third-party plugin's config key and service, typed.
assertType<Equal<HubosConfig['billing'], { currency: 'EUR' | 'USD'; vat?: number } | undefined>>();
assertType<Equal<ReturnType<ServiceOf<'billing'>['charge']>, string>>();
// The built-ins' keys and services come through too.
assertType<Equal<ServiceOf<'cosmos'>, Cosmos>>();

export const config = defineConfig({
  billing: { currency: 'EUR', vat: 20 },
  cosmos: { maxAgents: 2 },
  plugins: [cosmos()],
});

export const shop = definePlugin({
  name: 'shop',
  dependencies: ['billing', 'cosmos'],
  apply(kernel) {
    const receipt: string = kernel.service('billing').charge(250);
    void receipt;
    getCosmosHooks(kernel).spawned.tap('shop', ({ agent }) => void agent.id);
    // @ts-expect-error only the plugin that owns a hook calls it; others tap it
    void getCosmosHooks(kernel).spawned.promise;
  },
});

// @ts-expect-error a key no plugin declares
export const typo: HubosConfig = { biling: { currency: 'EUR' } };
// @ts-expect-error a value of the wrong type
export const wrong: HubosConfig = { billing: { currency: 'GBP' } };
// @ts-expect-error exactOptionalPropertyTypes: an optional key is absent, not undefined
export const explicit: HubosConfig = { billing: { currency: 'EUR', vat: undefined } };

export const kernel = createKernel({ config });
`;

let app: string;

beforeAll(async () => {
  const tarball = await packedHubos();
  app = await tempDir('hubos-types-');
  await writeFiles(app, {
    'package.json': '{ "name": "types-app", "private": true, "type": "module" }\n',
    'billing.ts': BILLING,
    'use.ts': USE,
  });
  expectOk(await npm(['install', '--prefer-offline', tarball], app), 'npm install of the tarball');
}, 300_000);

/** How a project resolves modules: Node's own way, or a bundler's (Vite and the like). */
const RESOLUTION = {
  nodenext: { module: 'nodenext' },
  bundler: { module: 'preserve', moduleResolution: 'bundler' },
};

/** Compiles the project with its files in this order; returns tsc's output, empty when it passes. */
async function compile(
  files: string[],
  resolution: keyof typeof RESOLUTION = 'nodenext',
): Promise<{ code: number; output: string }> {
  const tsconfig = {
    compilerOptions: {
      strict: true,
      exactOptionalPropertyTypes: true,
      ...RESOLUTION[resolution],
      target: 'es2023',
      noEmit: true,
      // The declarations of the package itself are checked too, not skipped.
      skipLibCheck: false,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
    },
    files,
  };
  await writeFiles(app, { 'tsconfig.json': JSON.stringify(tsconfig, null, 2) });
  const result = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], {
    cwd: app,
    env: cleanEnv,
    timeout: 240_000,
  });
  return { code: result.code, output: result.stdout + result.stderr };
}

describe("augmenting 'hubos' in a project compiled against the packed package", () => {
  it('holds with the augmenting file first', async () => {
    const { code, output } = await compile(['billing.ts', 'use.ts']);
    expect(output).toBe('');
    expect(code).toBe(0);
  }, 300_000);

  it('holds with the augmenting file last', async () => {
    const { code, output } = await compile(['use.ts', 'billing.ts']);
    expect(output).toBe('');
    expect(code).toBe(0);
  }, 300_000);

  it('holds in a project that resolves modules as a bundler does, in either order', async () => {
    for (const files of [
      ['billing.ts', 'use.ts'],
      ['use.ts', 'billing.ts'],
    ]) {
      const { code, output } = await compile(files, 'bundler');
      expect(output, files.join(', ')).toBe('');
      expect(code).toBe(0);
    }
  }, 300_000);

  it('fails without the augmentation: the checks above can fail', async () => {
    const { code, output } = await compile(['use.ts']);
    expect(code).not.toBe(0);
    expect(output).toContain("Property 'billing' does not exist");
  }, 300_000);
});
