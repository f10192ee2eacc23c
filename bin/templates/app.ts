/**
 * The files of the app `hubos init` writes: a config with an agent, a local tool plugin and its
 * test. `ext` is `.ts`, or `.mts` in an app that stays CommonJS (so `node --test` reads them as
 * ES modules too).
 */
export function appFiles(ext: '.ts' | '.mts' = '.ts'): Record<string, string> {
  const named = (source: string) => source.replaceAll('/dice.ts', `/dice${ext}`);
  return {
    [`agent.config${ext}`]: named(CONFIG),
    [`plugins/dice${ext}`]: DICE_PLUGIN,
    [`test/dice.test${ext}`]: named(DICE_TEST),
  };
}

/**
 * The app's tsconfig.json, for the editor and `npm run typecheck` (tsc checks, Node.js runs the
 * files as they are): what Node.js's type stripping runs (erasable syntax, imports with their .ts
 * extension), as ES modules resolved the way Node.js does.
 */
export const APP_TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2023',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      erasableSyntaxOnly: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
    },
    exclude: ['node_modules', 'workspace', '.hubos'],
  },
  null,
  2,
)}\n`;

/** What the app's typecheck needs (TypeScript, and the types of Node.js for the test's node: imports). */
export const APP_DEV_DEPENDENCIES = { typescript: '^6.0.3', '@types/node': '^24.0.0' };

const CONFIG = `import { defineConfig } from 'hubos';
import dice from './plugins/dice.ts';

// No "model" here: HubOS uses OpenAI when OPENAI_API_KEY is set, Anthropic when ANTHROPIC_API_KEY
// is, and otherwise the offline demo model, which needs no key and calls a tool when a message is
// "/<tool> <json>" (try: /dice_roll {"count": 2}). Name one to choose: model: 'openai:gpt-4.1-mini'.
export default defineConfig({
  plugins: [dice({ sides: 6 })],
  agents: {
    assistant: {
      description: 'A friendly assistant that rolls dice on request.',
      instructions: 'You are a friendly assistant. When the user wants a random roll, use dice_roll.',
      tools: ['dice_roll'],
    },
  },
});
`;

const DICE_PLUGIN = `import { definePlugin, defineTool } from 'hubos';

/**
 * A local tool plugin: dice_roll. Options are checked when the app loads, so a typo such as
 * { sieds: 6 } fails naming the option. As it grows, move it to an npm package of its own
 * (npx hubos create-plugin <name> scaffolds one).
 */
export default definePlugin(
  {
    name: 'dice',
    optionsSchema: {
      type: 'object',
      properties: { sides: { type: 'integer', minimum: 2, maximum: 1000, default: 6 } },
      additionalProperties: false,
    },
  },
  (options) => ({
    name: 'dice',
    apply(kernel) {
      kernel.hooks.registerTools.tap('dice', (registry) => {
        registry.register(diceRoll(options.sides ?? 6));
      });
    },
  }),
);

function diceRoll(defaultSides: number) {
  return defineTool({
    name: 'dice_roll',
    description: 'Rolls dice and returns each roll and the total. Use it when the user wants a random roll.',
    inputSchema: {
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 1, maximum: 100, default: 1, description: 'How many dice' },
        sides: { type: 'integer', minimum: 2, maximum: 1000, description: \`Sides per die (default \${defaultSides})\` },
      },
      additionalProperties: false,
    },
    handler: (_ctx, { input }) => {
      const sides = input.sides ?? defaultSides;
      const rolls = Array.from({ length: input.count ?? 1 }, () => 1 + Math.floor(Math.random() * sides));
      return { rolls, total: rolls.reduce((sum, roll) => sum + roll, 0) };
    },
  });
}
`;

const DICE_TEST = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootKernel, invokeTool } from 'hubos/testing';
import dice from '../plugins/dice.ts';

test('dice_roll rolls as many dice as asked, each within its sides', async () => {
  const kernel = await bootKernel({ plugins: [dice({ sides: 20 })] });
  try {
    const tool = kernel.registry.get('dice_roll');
    const result = await invokeTool(tool, { count: 3 });
    assert.ok(result.ok);
    const { rolls, total } = result.output as { rolls: number[]; total: number };
    assert.equal(rolls.length, 3);
    assert.ok(rolls.every((roll) => roll >= 1 && roll <= 20));
    assert.equal(total, rolls[0]! + rolls[1]! + rolls[2]!);
    const invalid = await invokeTool(tool, { count: 0 });
    assert.equal(invalid.ok, false);
  } finally {
    await kernel.close();
  }
});

test('the plugin rejects options it does not know', () => {
  assert.throws(() => dice({ sieds: 6 } as never), /sieds/);
});
`;
