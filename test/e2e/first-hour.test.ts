/**
 * The first hour outside the repo, as a new user meets it: the packed package installed into a
 * folder made by `npm init -y`, `npx hubos init`, the app's own test, `hubos run`, `hubos serve`,
 * a scaffolded plugin, and the machine's old Node.js meeting the version guard. Real processes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_NODE_VERSION, NODE_ENGINES, unsupportedNodeMessage } from '../../core/node-version.ts';
import { cleanEnv, expectOk, INSTALL_TIMEOUT, npm, packedHubos } from '../helpers/packed-hubos.ts';
import { run, tempDir, writeFiles } from '../helpers/run.ts';
import { serveProcess, stopServe } from '../helpers/serve-process.ts';

// Without a model's key, as a new user starts: the offline demo model answers.
const env: NodeJS.ProcessEnv = { ...cleanEnv };
delete env.OPENAI_API_KEY;
delete env.ANTHROPIC_API_KEY;
delete env.OPENAI_BASE_URL;

const npx = (args: string[], cwd: string) => run('npx', ['--no', ...args], { cwd, env, timeout: 120_000 });

let tarball: string;
let app: string;

beforeAll(async () => {
  tarball = await packedHubos();
  app = await tempDir('hubos-first-hour-');
  expectOk(await npm(['init', '-y'], app, env), 'npm init -y');
  expectOk(await npm(['install', '--prefer-offline', tarball], app, env), 'npm install of the tarball');
}, 300_000);

describe('a new app, from npm init -y', () => {
  it('loads an ES module config although npm init wrote "type": "commonjs"', async () => {
    expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).type).toBe('commonjs');
    await writeFiles(app, {
      'agent.config.ts': `import { defineConfig, defineTool } from 'hubos';
const tool = defineTool({ name: 'hello', description: 'Says hello.', inputSchema: { type: 'object' }, handler: () => 'hi' });
export default defineConfig({ plugins: [{ name: 'mine', apply: (k) => k.hooks.registerTools.tap('mine', (r) => r.register(tool)) }] });
`,
    });
    const tools = await npx(['hubos', 'tools', '--json'], app);
    expectOk(tools, 'hubos tools');
    expect((JSON.parse(tools.stdout) as { name: string }[]).map((t) => t.name)).toContain('hello');
    await rm(join(app, 'agent.config.ts'));
  });

  it(
    'hubos init makes a working app: an agent, a local tool plugin and its passing test',
    async () => {
      const init = await npx(['hubos', 'init'], app);
      expectOk(init, 'hubos init');
      expect(init.stdout).toContain('agent.config.ts     the agent "assistant"');
      expect(init.stdout).toContain('offline demo model');
      expect(init.stdout).toContain(`npx hubos run assistant '/dice_roll {"count": 2}'`);
      const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
      expect(pkg.type).toBe('module');
      expect(pkg.engines.node).toBe(NODE_ENGINES);
      expect(pkg.dependencies.hubos).toMatch(/^file:.*hubos-\d+\.\d+\.\d+\.tgz$/); // as npm install wrote it
      expect(readFileSync(join(app, '.npmrc'), 'utf8')).toContain('engine-strict=true');

      const test = await npm(['test'], app, env);
      expectOk(test, 'npm test of the app');
      expect(test.stdout).toMatch(/pass 2\n/);
      expect(test.stdout).toMatch(/fail 0\n/);

      const roll = await npx(['hubos', 'run', 'assistant', '/dice_roll {"count": 2, "sides": 6}'], app);
      expectOk(roll, 'hubos run with a tool call');
      const rolled = JSON.parse(/dice_roll returned: (\{.*\})/.exec(roll.stdout)?.[1] ?? 'null');
      expect(rolled.rolls).toHaveLength(2);
      expect(rolled.total).toBe(rolled.rolls[0] + rolled.rolls[1]);
      const chat = await npx(['hubos', 'run', 'assistant', 'hello'], app);
      expectOk(chat, 'hubos run');
      expect(chat.stdout).toContain('I am the offline demo model');
      expect(chat.stdout).toContain('/dice_roll');
    },
    INSTALL_TIMEOUT,
  );

  it('hubos serve answers the agent over HTTP and serves the chat page for it', async () => {
    const server = await serveProcess(join(app, 'node_modules/.bin/hubos'), [], { cwd: app, env });
    try {
      const page = await fetch(`${server.url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const agents = (await (await fetch(`${server.url}/api/agents`)).json()) as {
        agents: { name: string; description?: string }[];
      };
      expect(agents.agents.map((agent) => agent.name)).toEqual(['assistant']);
      expect(agents.agents[0]!.description).toBe('A friendly assistant that rolls dice on request.');
      const response = await fetch(`${server.url}/api/agents/assistant/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: '/dice_roll {"count": 3}' }),
      });
      expect(response.status).toBe(200);
      const result = (await response.json()) as {
        toolCalls: { name: string; ok: boolean; output: { rolls: number[] } }[];
      };
      expect(result.toolCalls[0]).toMatchObject({ name: 'dice_roll', ok: true });
      expect(result.toolCalls[0]!.output.rolls).toHaveLength(3);
    } finally {
      await stopServe(server);
    }
  });

  it('a Redis bus in an app without ioredis fails naming the npm install to run', async () => {
    const validate = await run('npx', ['--no', 'hubos', 'validate'], {
      cwd: app,
      env: { ...env, HUBOS_REDIS_URL: 'redis://127.0.0.1:1' },
      timeout: 120_000,
    });
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain('the Redis bus needs the package ioredis (not installed)');
    expect(validate.stderr).toContain('run "npm install ioredis" in the app');
  });

  it('a PostgreSQL store in an app without pg fails naming the npm install to run', async () => {
    // npm installs no optional peer by itself: an app on SQLite has no PostgreSQL client.
    expect(existsSync(join(app, 'node_modules/pg'))).toBe(false);
    const validate = await run('npx', ['--no', 'hubos', 'validate'], {
      cwd: app,
      env: { ...env, HUBOS_DATABASE_URL: 'postgres://hubos@127.0.0.1:1/hubos' },
      timeout: 120_000,
    });
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain('CONFIG_INVALID');
    expect(validate.stderr).toContain('the PostgreSQL store needs the package pg (not installed)');
    expect(validate.stderr).toContain('run "npm install pg" in the app');
  });

  it('bad options of the local plugin fail at load, naming the option', async () => {
    const config = readFileSync(join(app, 'agent.config.ts'), 'utf8');
    await writeFiles(app, {
      'agent.config.ts': config.replace('dice({ sides: 6 })', 'dice({ sieds: 6 } as never)'),
    });
    try {
      const validate = await npx(['hubos', 'validate'], app);
      expect(validate.code).toBe(1);
      expect(validate.stderr).toContain('"sieds"');
      expect(validate.stderr).toContain('did you mean "sides"?');
    } finally {
      await writeFiles(app, { 'agent.config.ts': config });
    }
  });

  it(
    'hubos create-plugin scaffolds a package that installs hubos the way the app did, builds and tests',
    async () => {
      const created = await npx(['hubos', 'create-plugin', 'hubos-plugin-weather'], app);
      expectOk(created, 'hubos create-plugin');
      expect(created.stdout).toContain(
        'Next: cd hubos-plugin-weather && npm install && npm run build && npm test',
      );
      const plugin = join(app, 'hubos-plugin-weather');
      const pkg = JSON.parse(readFileSync(join(plugin, 'package.json'), 'utf8'));
      expect(pkg.engines.node).toBe(NODE_ENGINES);
      expect(pkg.peerDependencies.hubos).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(pkg.devDependencies.hubos).toMatch(/^file:\.\.\/.*hubos-\d+\.\d+\.\d+\.tgz$/);
      expect(readFileSync(join(plugin, 'README.md'), 'utf8')).not.toContain('npmjs.com');
      expectOk(await npm(['install', '--prefer-offline'], plugin, env), 'npm install in the scaffold');
      expectOk(await npm(['run', 'build'], plugin, env), 'npm run build in the scaffold');
      const test = await npm(['test'], plugin, env);
      expectOk(test, 'npm test in the scaffold');
      expect(test.stdout).toMatch(/pass [1-9]\d*\n/);
      expect(test.stdout).toMatch(/fail 0\n/);
    },
    INSTALL_TIMEOUT,
  );
});

describe('an existing CommonJS app', () => {
  it(
    'hubos init leaves it CommonJS, with .mts files whose test passes, and its own scripts still run',
    async () => {
      const legacy = await tempDir('hubos-legacy-');
      try {
        expectOk(await npm(['init', '-y'], legacy, env), 'npm init -y');
        await writeFiles(legacy, {
          'index.js': "const os = require('node:os');\nconsole.log('legacy', typeof os.platform());\n",
        });
        expectOk(
          await npm(['install', '--prefer-offline', tarball], legacy, env),
          'npm install of the tarball',
        );
        const init = await npx(['hubos', 'init'], legacy);
        expectOk(init, 'hubos init');
        expect(init.stdout).toContain("is CommonJS, so the app's files are .mts");
        expect(JSON.parse(readFileSync(join(legacy, 'package.json'), 'utf8')).type).toBe('commonjs');
        const test = await npm(['test'], legacy, env);
        expectOk(test, 'npm test of the app');
        expect(test.stdout).toMatch(/pass 2\n/);
        const roll = await npx(['hubos', 'run', 'assistant', '/dice_roll {"count": 1}'], legacy);
        expectOk(roll, 'hubos run');
        expect(roll.stdout).toContain('dice_roll returned');
        const own = await run(process.execPath, ['index.js'], { cwd: legacy, env });
        expect(own).toMatchObject({ code: 0, stdout: 'legacy string\n' });
      } finally {
        await rm(legacy, { recursive: true, force: true });
      }
    },
    INSTALL_TIMEOUT,
  );
});

/** The machine's own Node.js, when it is older than HubOS supports (Debian's, on the CI machines). */
const oldNode = (() => {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const version = String(execFileSync(path, ['-p', 'process.versions.node'])).trim();
      if (unsupportedNodeMessage(version)) return { path, version };
    } catch {}
  }
  return undefined;
})();

describe.skipIf(!oldNode)(`on the machine's Node.js older than ${MIN_NODE_VERSION}`, () => {
  const old = oldNode!;
  const expected = `HubOS needs Node.js ${MIN_NODE_VERSION} or newer, and this is Node.js ${old?.version}.`;

  it('the hubos command fails with one line naming both versions and how to upgrade', async () => {
    const oldEnv = { ...env, PATH: `${dirname(old.path)}${delimiter}${process.env.PATH ?? ''}` };
    const result = await run(old.path, [join(app, 'node_modules/hubos/dist/bin/hubos.js'), 'tools'], {
      cwd: app,
      env: oldEnv,
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n'), result.stderr).toEqual([expect.stringContaining(expected)]);
    expect(result.stderr).toContain('Install Node.js 24');
  });

  it('importing hubos throws an error that an embedding app catches, naming both versions', async () => {
    const caught = (load: string) =>
      `try { ${load}; } catch (error) { console.log(error.code + ': ' + error.message); process.exit(3); }`;
    const cases: [string, string[]][] = [
      ["import('hubos')", ['--input-type=module', '-e', caught("await import('hubos')")]],
      ["import('hubos/testing')", ['--input-type=module', '-e', caught("await import('hubos/testing')")]],
      ["require('hubos/plugins')", ['-e', caught("require('hubos/plugins')")]],
    ];
    for (const [what, args] of cases) {
      const result = await run(old.path, args, { cwd: app, env });
      expect(result.code, `${what}: ${result.stderr}`).toBe(3);
      expect(result.stdout, what).toContain(`NODE_UNSUPPORTED: ${expected}`);
      expect(result.stdout, what).toContain('Install Node.js 24');
    }
  });

  it("the app's npm test names both versions and how to upgrade, not missing test files", async () => {
    const oldEnv = { ...env, PATH: `${dirname(old.path)}${delimiter}${process.env.PATH ?? ''}` };
    const test = await run('npm', ['test'], { cwd: app, env: oldEnv, timeout: 120_000 });
    expect(test.code).not.toBe(0);
    expect(test.stderr).toContain(expected);
    expect(`${test.stdout}${test.stderr}`).not.toContain('Could not find');
  });

  it("npm refuses to install the app's dependencies on it, naming the versions (engine-strict)", async () => {
    const oldEnv = { ...env, PATH: `${dirname(old.path)}${delimiter}${process.env.PATH ?? ''}` };
    const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: app,
      env: oldEnv,
      timeout: 120_000,
    });
    expect(install.code).not.toBe(0);
    expect(install.stderr).toContain('EBADENGINE');
    expect(install.stderr).toContain(`"node":"${NODE_ENGINES}"`);
    expect(install.stderr).toContain(`"node":"v${old.version}"`);
  });
});

afterAll(async () => {
  if (app) await rm(app, { recursive: true, force: true });
});
