import { existsSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, expectOk, INSTALL_TIMEOUT, npm, packedHubos } from '../helpers/packed-hubos.ts';
import { CLOCK_FIXTURE, ROOT, run, tempDir, writeFiles } from '../helpers/run.ts';
import { type ServeProcess, serveProcess } from '../helpers/serve-process.ts';

let app: string;
let tarball: string;

beforeAll(async () => {
  tarball = await packedHubos();
  const packs = await tempDir('hubos-pack-');
  const clock = await npm(['pack', CLOCK_FIXTURE, '--pack-destination', packs, '--json'], packs);
  expectOk(clock, 'npm pack of the plugin fixture');
  const clockTarball = join(packs, (JSON.parse(clock.stdout) as { filename: string }[])[0]!.filename);

  app = await tempDir('hubos-app-');
  await writeFiles(app, { 'package.json': '{ "name": "app", "private": true, "type": "module" }\n' });
  expectOk(
    await npm(['install', '--prefer-offline', tarball, clockTarball], app),
    'npm install of the tarballs',
  );
}, 300_000);

describe('the npm package', () => {
  it('ships compiled JavaScript with type declarations, and no TypeScript sources', () => {
    const pkg = join(app, 'node_modules/hubos');
    for (const file of [
      'dist/core/index.js',
      'dist/core/index.d.ts',
      'dist/plugins/index.js',
      'dist/testing/index.d.ts',
      'dist/bin/hubos.js',
    ]) {
      expect(existsSync(join(pkg, file)), file).toBe(true);
    }
    expect(existsSync(join(pkg, 'core/index.ts'))).toBe(false);
  });

  it('is importable from plain Node: Registry, defineTool, createKernel, and the subpaths', async () => {
    await writeFiles(app, {
      'check.mjs': `
import { Registry, defineTool, createKernel, HubosError } from 'hubos';
import { defaultPlugins } from 'hubos/plugins';
import { bootKernel, invokeTool } from 'hubos/testing';
const registry = new Registry();
registry.register(defineTool({
  name: 'add', description: 'Adds two numbers.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number', default: 1 } }, required: ['a'] },
  handler: (_ctx, { input }) => input.a + input.b,
}));
let duplicate;
try { registry.register(registry.get('add')); } catch (error) { duplicate = HubosError.is(error, 'TOOL_DUPLICATE'); }
const kernel = await createKernel({ config: { plugins: [] }, plugins: defaultPlugins({}) }).boot();
await kernel.close();
console.log(JSON.stringify({
  tools: registry.list().map((tool) => tool.name),
  sum: await invokeTool(registry.get('add'), { a: 2 }),
  invalid: await invokeTool(registry.get('add'), { a: '2' }),
  duplicate,
  state: kernel.state,
  booted: typeof bootKernel,
}));
`,
    });
    const result = await run('node', ['check.mjs'], { cwd: app, env: cleanEnv });
    expectOk(result, 'node check.mjs');
    expect(JSON.parse(result.stdout)).toEqual({
      tools: ['add'],
      sum: { ok: true, output: 3 },
      invalid: {
        ok: false,
        error: {
          code: 'TOOL_INPUT_INVALID',
          message:
            'invalid input for tool "add": "a" must be number, got string "2". Fix the arguments and call "add" again.',
        },
      },
      duplicate: true,
      state: 'closed',
      booted: 'function',
    });
  });

  it('installs a working hubos bin that loads an installed plugin package by name', async () => {
    await writeFiles(app, {
      'agent.config.ts': `import { defineConfig } from 'hubos';
export default defineConfig({ plugins: [['hubos-plugin-clock', { timezone: 'America/New_York' }]] });
`,
    });
    const bin = join(app, 'node_modules/.bin/hubos');
    const result = await run(bin, ['tools', '--json'], { cwd: app, env: cleanEnv });
    expectOk(result, 'hubos tools');
    const tools = JSON.parse(result.stdout) as { name: string }[];
    expect(tools.map((tool) => tool.name).slice(-2)).toEqual(['clock_now', 'clock_convert']);
    const plain = await run(
      'node',
      [
        '--input-type=module',
        '-e',
        "import { bootKernel, invokeTool } from 'hubos/testing'; const k = await bootKernel({ config: { plugins: [['hubos-plugin-clock', { timezone: 'Asia/Kolkata' }]] } }); console.log(JSON.stringify(await invokeTool(k.registry.get('clock_convert'), { time: '2026-01-01T00:00:00Z', to: 'Asia/Kolkata' })));",
      ],
      { cwd: app, env: cleanEnv },
    );
    expectOk(plain, 'plugin by name from plain Node');
    expect(JSON.parse(plain.stdout)).toMatchObject({
      ok: true,
      output: { timezone: 'Asia/Kolkata', iso: '2026-01-01T00:00:00.000Z' },
    });
    expect(JSON.parse(plain.stdout).output.formatted).toContain('5:30:00');
  });

  it(
    'scaffolds a plugin with hubos create-plugin that builds and passes its own test',
    async () => {
      const bin = join(app, 'node_modules/.bin/hubos');
      expectOk(
        await run(bin, ['create-plugin', 'hubos-plugin-greeter'], { cwd: app, env: cleanEnv }),
        'create-plugin',
      );
      const plugin = join(app, 'hubos-plugin-greeter');
      expectOk(await npm(['install', '--prefer-offline', tarball], plugin), 'npm install in the scaffold');
      expectOk(await npm(['run', 'build'], plugin), 'npm run build in the scaffold');
      expect(existsSync(join(plugin, 'dist/index.js'))).toBe(true);
      expect(existsSync(join(plugin, 'dist/index.d.ts'))).toBe(true);
      const test = await npm(['test'], plugin);
      expectOk(test, 'npm test in the scaffold');
      expect(test.stdout).toMatch(/pass 1\n/);
      expect(test.stdout).toMatch(/fail 0\n/);
    },
    INSTALL_TIMEOUT,
  );
});

const KEY_A = 'key-a-0123456789abcdef';
const KEY_B = 'key-b-0123456789abcdef';

/** `hubos serve --port 0` in a project, with the config's keys the only ones. */
function serve(cwd: string): Promise<ServeProcess> {
  const env = { ...cleanEnv };
  delete env.HUBOS_API_KEYS; // the config's keys are the ones under test
  return serveProcess(join(cwd, 'node_modules/.bin/hubos'), [], { cwd, env });
}

describe('a third-party plugin package using hubos/server (examples/hubos-plugin-bookmarks)', () => {
  let project: string;
  let server: Awaited<ReturnType<typeof serve>> | undefined;

  beforeAll(async () => {
    // The example as its author would publish it: built against the installed package's .d.ts with
    // its own tsconfig, packed, and installed by name next to hubos (its Hono comes from hubos/server).
    project = await tempDir('hubos-bookmarks-');
    await writeFiles(project, { 'package.json': '{ "name": "app", "private": true, "type": "module" }\n' });
    const plugin = join(project, 'hubos-plugin-bookmarks');
    await cp(join(ROOT, 'examples/hubos-plugin-bookmarks'), plugin, {
      recursive: true,
      filter: (source) => !/[\\/](node_modules|dist)$|\.tgz$/.test(source),
    });
    expectOk(
      await npm(['install', '--prefer-offline', tarball, '@types/node@^24'], project),
      'npm install of hubos and @types/node',
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    expectOk(await run(process.execPath, [tsc, '-p', plugin], { cwd: project }), 'tsc of the example');
    // Built just above: its prepack (`npm run build`) would look for a TypeScript it does not have here.
    const pack = await npm(['pack', '--ignore-scripts', '--json'], plugin);
    expectOk(pack, 'npm pack of the example');
    const packed = join(plugin, (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename);
    expectOk(await npm(['install', '--prefer-offline', packed], project), 'npm install of the example');
    await writeFiles(project, {
      'agent.config.js': `export default {
  plugins: [['hubos-plugin-bookmarks', { max: 2 }]],
  server: { apiKeys: ['${KEY_A}', '${KEY_B}'] },
  agents: { assistant: { model: 'offline', tools: ['bookmarks_*'] } },
};
`,
    });
  }, 300_000);

  afterAll(() => {
    server?.child.kill('SIGKILL');
  });

  it('ships dist with types, whose service and error codes are typed for other code', async () => {
    const installed = join(project, 'node_modules/hubos-plugin-bookmarks');
    expect(existsSync(join(installed, 'dist/index.js'))).toBe(true);
    expect(existsSync(join(installed, 'dist/index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    await writeFiles(project, {
      'check.ts': `import plugin, { type Bookmark, errors } from 'hubos-plugin-bookmarks';
import { HubosError } from 'hubos';
import { bootKernel } from 'hubos/testing';

const kernel = await bootKernel({ plugins: [plugin({ max: 1 })] });
// Typed by the package's HubosServices augmentation: no cast, and wrong calls do not compile.
const bookmarks = kernel.service('bookmarks');
const added: Bookmark = await bookmarks.add('someone', { url: 'https://example.com/', title: 'Example' });
// Never called: it only holds what must not compile.
export function wrong() {
  // @ts-expect-error: a bookmark needs a title
  void bookmarks.add('someone', { url: 'https://example.com/' });
  // @ts-expect-error: only the declared codes can be raised
  errors.create('NO_SUCH_CODE', 'x');
}
const full = await bookmarks.add('someone', { url: 'https://example.org/', title: 'Two' }).catch((e: unknown) => e);
const gone = await bookmarks.remove('someone', 'nope').catch((e: unknown) => e);
console.log(JSON.stringify({
  listed: (await bookmarks.list('someone')).map((b) => b.id === added.id),
  others: await bookmarks.list('someone-else'),
  full: HubosError.is(full) && [full.code, full.status],
  gone: HubosError.is(gone) && [gone.code, gone.status],
}));
await kernel.close();
`,
      'tsconfig.json': `${JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        files: ['check.ts'],
      })}\n`,
    });
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    expectOk(await run(process.execPath, [tsc, '-p', project], { cwd: project }), 'tsc --noEmit of check.ts');
    const result = await run(process.execPath, ['check.ts'], { cwd: project, env: cleanEnv });
    expectOk(result, 'node check.ts');
    expect(JSON.parse(result.stdout)).toEqual({
      listed: [true],
      others: [],
      full: ['BOOKMARKS_FULL', 409],
      gone: ['BOOKMARK_NOT_FOUND', 404],
    });
  });

  it('registers bookmarks_list, with its permission, for hubos tools', async () => {
    const result = await run(join(project, 'node_modules/.bin/hubos'), ['tools', '--json'], {
      cwd: project,
      env: cleanEnv,
    });
    expectOk(result, 'hubos tools --json');
    const tools = JSON.parse(result.stdout) as { name: string; permissions: string[] }[];
    expect(tools.find((tool) => tool.name === 'bookmarks_list')).toMatchObject({
      permissions: ['bookmarks:read'],
    });
  });

  it('serves its routes behind HubOS auth, per caller, with its own error codes and OpenAPI', async () => {
    server = await serve(project);
    const { url } = server;
    const call = async (method: string, path: string, key?: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      // biome-ignore lint/suspicious/noExplicitAny: each assertion reads the fields it expects.
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
    };

    expect(await call('GET', '/api/bookmarks')).toMatchObject({
      status: 401,
      body: { error: { code: 'UNAUTHORIZED' } },
    });

    const added = await call('POST', '/api/bookmarks', KEY_A, { url: 'https://example.com/a', title: 'A' });
    expect(added).toMatchObject({ status: 201, body: { url: 'https://example.com/a', title: 'A' } });
    const id = added.body.id as string;

    const listA = await call('GET', '/api/bookmarks', KEY_A);
    expect(listA.status).toBe(200);
    expect(listA.body.bookmarks).toEqual([added.body]);
    const listB = await call('GET', '/api/bookmarks', KEY_B);
    expect(listB.body.bookmarks).toEqual([]);
    expect(listB.body.owner).not.toBe(listA.body.owner);
    expect(listA.body.owner).not.toContain(KEY_A);

    const invalid = await call('POST', '/api/bookmarks', KEY_A, { url: 'not a url', title: 'x' });
    expect(invalid).toMatchObject({ status: 400, body: { error: { code: 'INVALID_BODY' } } });
    expect(invalid.body.error.message).toBe(
      'invalid request body: "url" must match format "uri", got string "not a url"',
    );
    const missing = await call('POST', '/api/bookmarks', KEY_A, { url: 'https://example.com/b' });
    expect(missing.body.error.message).toBe('invalid request body: missing required property "title"');

    expect(await call('DELETE', '/api/bookmarks/no-such-id', KEY_A)).toMatchObject({
      status: 404,
      body: {
        error: {
          code: 'BOOKMARK_NOT_FOUND',
          message: 'no bookmark "no-such-id": GET the list for the ids you have',
        },
      },
    });
    // B cannot delete A's bookmark: to B it does not exist.
    expect((await call('DELETE', `/api/bookmarks/${id}`, KEY_B)).status).toBe(404);

    // A served agent calls the tool (the offline model runs `/<tool> <json>`): it reads the list of
    // the key that started the run (tc.principal), A's for A and nothing of A's for B.
    const ran = await call('POST', '/api/agents/assistant/run', KEY_A, { input: '/bookmarks_list {}' });
    expect(ran.body.toolCalls).toMatchObject([
      { name: 'bookmarks_list', ok: true, output: { bookmarks: [{ id }] } },
    ]);
    const ranB = await call('POST', '/api/agents/assistant/run', KEY_B, { input: '/bookmarks_list {}' });
    expect(ranB.body.toolCalls).toMatchObject([
      { name: 'bookmarks_list', ok: true, output: { bookmarks: [] } },
    ]);

    expect(await call('DELETE', `/api/bookmarks/${id}`, KEY_A)).toEqual({ status: 204, body: undefined });
    expect((await call('GET', '/api/bookmarks', KEY_A)).body.bookmarks).toEqual([]);

    const { paths } = (await call('GET', '/api/openapi.json', KEY_A)).body;
    expect(paths['/api/bookmarks'].post).toMatchObject({
      summary: 'Add a bookmark',
      tags: ['bookmarks'],
      requestBody: {
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { url: { type: 'string', format: 'uri' }, title: { type: 'string' } },
              required: ['url', 'title'],
              additionalProperties: false,
            },
          },
        },
      },
      responses: { 201: { description: 'Added' }, 400: { description: 'Invalid body' } },
    });
    expect(paths['/api/bookmarks'].get).toMatchObject({ tags: ['bookmarks'] });
    expect(paths['/api/bookmarks/{id}'].delete).toMatchObject({
      parameters: [{ name: 'id', in: 'path', required: true }],
      responses: { 404: { description: 'No such bookmark' } },
    });

    const exited = new Promise<number | null>((resolve) => server!.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    expect(await exited, server.output()).toBe(0);
    server = undefined;
  });
});
