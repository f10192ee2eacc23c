/** The files of a plugin package scaffolded by `hubos create-plugin <name>`. */
export function pluginFiles(name: string, hubosVersion: string): Record<string, string> {
  const short = name.replace(/^@[^/]+\//, '').replace(/^hubos-plugin-/, '');
  const prefix = short.replace(/[^a-zA-Z0-9_]+/g, '_').replace(/^_+|_+$/g, '') || 'plugin';
  const tool = `${prefix}_greet`.slice(0, 64);
  const range = `^${hubosVersion}`;
  const pkg = {
    name,
    version: '0.1.0',
    description: `A HubOS tool plugin: ${tool}`,
    type: 'module',
    keywords: ['hubos', 'hubos-plugin'],
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    files: ['dist'],
    engines: { node: '>=22.18' },
    scripts: {
      build: 'tsc',
      test: 'node --test "test/**/*.test.ts"',
      prepack: 'npm run build',
    },
    peerDependencies: { hubos: range },
    devDependencies: { hubos: range, typescript: '^6.0.3', '@types/node': '^24.0.0' },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2023',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
      strict: true,
      declaration: true,
      erasableSyntaxOnly: true,
      verbatimModuleSyntax: true,
      rewriteRelativeImportExtensions: true,
      skipLibCheck: true,
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
  };
  return {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(tsconfig, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n*.tgz\n',
    'src/index.ts': `import { definePlugin, defineTool } from 'hubos';

export interface Options {
  /** The word to greet with. */
  greeting?: string;
}

/** A HubOS plugin: add it to agent.config.ts as ['${name}', { greeting: 'Hi' }]. */
export default definePlugin((options: Options = {}) => {
  const greeting = options.greeting ?? 'Hello';
  return {
    name: '${name}',
    version: '0.1.0',
    apply(kernel) {
      kernel.hooks.registerTools.tap('${name}', (registry) => {
        registry.register(
          defineTool({
            name: '${tool}',
            description: 'Greets someone by name. Use it when the user asks to greet a person.',
            inputSchema: {
              type: 'object',
              properties: { name: { type: 'string', minLength: 1, description: 'Who to greet' } },
              required: ['name'],
              additionalProperties: false,
            },
            handler: (_ctx, { input }) => ({ message: \`\${greeting}, \${input.name}!\` }),
          }),
        );
      });
    },
  };
});
`,
    'test/plugin.test.ts': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootKernel, invokeTool } from 'hubos/testing';
import plugin from '../src/index.ts';

test('registers ${tool}, which greets with the configured greeting', async () => {
  const kernel = await bootKernel({ plugins: [plugin({ greeting: 'Hi' })] });
  try {
    const tool = kernel.registry.get('${tool}');
    assert.deepEqual(await invokeTool(tool, { name: 'Ada' }), { ok: true, output: { message: 'Hi, Ada!' } });
    const invalid = await invokeTool(tool, {});
    assert.equal(invalid.ok, false);
    assert.match(invalid.ok ? '' : invalid.error.message, /missing required property "name"/);
  } finally {
    await kernel.close();
  }
});
`,
    'README.md': `# ${name}

A [HubOS](https://www.npmjs.com/package/hubos) tool plugin. It registers \`${tool}\`.

\`\`\`ts
// agent.config.ts
import { defineConfig } from 'hubos';

export default defineConfig({
  plugins: [['${name}', { greeting: 'Hi' }]],
});
\`\`\`

\`npm run build\` compiles to \`dist/\`; \`npm test\` runs the tests (Node >= 22.18).
`,
  };
}
