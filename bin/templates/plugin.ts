import { NODE_ENGINES } from '../../core/index.ts';

/**
 * The files of a plugin package scaffolded by `hubos create-plugin <name>`. `hubos.range` is the
 * versions it works with (its peer dependency); `hubos.spec` is where its own tests install hubos
 * from, the way the app creating it got hubos (a tarball's `file:` path until hubos is on npm).
 */
export function pluginFiles(name: string, hubos: { range: string; spec: string }): Record<string, string> {
  const short = name.replace(/^@[^/]+\//, '').replace(/^hubos-plugin-/, '');
  const prefix = short.replace(/[^a-zA-Z0-9_]+/g, '_').replace(/^_+|_+$/g, '') || 'plugin';
  const tool = `${prefix}_greet`.slice(0, 64);
  const pkg = {
    name,
    version: '0.1.0',
    description: `A HubOS tool plugin: ${tool}`,
    type: 'module',
    keywords: ['hubos', 'hubos-plugin'],
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    files: ['dist'],
    engines: { node: NODE_ENGINES },
    scripts: {
      build: 'tsc',
      test: 'node --test "test/**/*.test.ts"',
      prepack: 'npm run build',
    },
    peerDependencies: { hubos: hubos.range },
    devDependencies: { hubos: hubos.spec, typescript: '^6.0.3', '@types/node': '^24.0.0' },
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
    // npm then refuses to install on a Node.js older than `engines` says, naming both versions.
    '.npmrc': 'engine-strict=true\n',
    'src/index.ts': `import { definePlugin, defineTool, type PluginOptionsInput } from 'hubos';

/** The plugin's options, checked when it loads: a bad one fails naming the option and what it expects. */
const optionsSchema = {
  type: 'object',
  properties: {
    greeting: { type: 'string', minLength: 1, default: 'Hello', description: 'The word to greet with.' },
  },
  additionalProperties: false,
} as const;

/** What \`['${name}', options]\` takes. */
export type Options = PluginOptionsInput<typeof optionsSchema>;

/** A HubOS plugin: add it to agent.config.ts as ['${name}', { greeting: 'Hi' }]. */
export default definePlugin({ name: '${name}', optionsSchema }, (options) => ({
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
          handler: (_ctx, { input }) => ({ message: \`\${options.greeting}, \${input.name}!\` }),
        }),
      );
    });
  },
}));
`,
    'test/plugin.test.ts': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootKernel, invokeTool } from 'hubos/testing';
import plugin from '../src/index.ts';

test('registers ${tool}, which greets with the configured greeting; bad options fail at load', async () => {
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
  // Options are checked before the plugin is made: a typo names the option it most likely meant.
  assert.throws(() => plugin({ greting: 'Hi' } as never), {
    code: 'PLUGIN_OPTIONS_INVALID',
    message: 'plugin "${name}": unknown option "greting" (did you mean "greeting"?)',
  });
  assert.throws(() => plugin({ greeting: '' }), { code: 'PLUGIN_OPTIONS_INVALID', message: /option "greeting"/ });
});
`,
    'README.md': `# ${name}

A HubOS tool plugin. It registers \`${tool}\`. Install it in a HubOS app
(\`npm install ${name}\` once published, or \`npm install /path/to/this/folder\`) and name it in the
app's config:

\`\`\`ts
// agent.config.ts
import { defineConfig } from 'hubos';

export default defineConfig({
  plugins: [['${name}', { greeting: 'Hi' }]],
});
\`\`\`

Working on it (Node.js 22.19 or newer, or 24 or newer): \`npm install\`, then \`npm run build\` compiles to \`dist/\` and
\`npm test\` runs the tests; \`npm pack\` makes the tarball an app can install.
`,
  };
}
