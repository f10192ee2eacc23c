/** The starter config `hubos init` writes: a working local tool plugin to grow from. */
export const STARTER_CONFIG = `import { defineConfig, definePlugin, defineTool } from 'hubos';

// A tool plugin written inline. Move it to its own file or npm package as it grows
// (\`hubos create-plugin <name>\` scaffolds one).
const dice = definePlugin({
  name: 'dice',
  apply(kernel) {
    kernel.hooks.registerTools.tap('dice', (registry) => {
      registry.register(
        defineTool({
          name: 'dice_roll',
          description: 'Rolls dice and returns each roll and the total. Use it when the user wants a random roll.',
          inputSchema: {
            type: 'object',
            properties: {
              sides: { type: 'integer', minimum: 2, maximum: 1000, default: 6, description: 'Sides per die' },
              count: { type: 'integer', minimum: 1, maximum: 100, default: 1, description: 'How many dice' },
            },
            additionalProperties: false,
          },
          handler: (_ctx, { input }) => {
            const sides = input.sides ?? 6;
            const rolls = Array.from({ length: input.count ?? 1 }, () => 1 + Math.floor(Math.random() * sides));
            return { rolls, total: rolls.reduce((sum, roll) => sum + roll, 0) };
          },
        }),
      );
    });
  },
});

export default defineConfig({
  plugins: [
    dice,
    // npm packages by name, with options: ['hubos-plugin-something', { option: 'value' }]
  ],
});
`;
