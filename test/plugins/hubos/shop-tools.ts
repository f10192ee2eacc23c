import { defineTool, type Plugin } from '../../../core/index.ts';

/** How many times each shop tool ran (reset it in each test). */
export const ran = { lookup: 0, charge: 0 };

/**
 * Two tools of a run that may resume: `lookup` reads a price (running it twice does no more than
 * once: `idempotent`), `charge` charges a card (twice charges twice; it waits for a human first).
 */
export const shopTools: Plugin = {
  name: 'shop-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('shop-tools', (registry) => {
      registry.register(
        defineTool({
          name: 'lookup',
          description: 'Reads a price: running it twice does no more than once.',
          inputSchema: { type: 'object', properties: {} },
          idempotent: true,
          handler: () => {
            ran.lookup++;
            return { price: 42 };
          },
        }),
      );
      registry.register(
        defineTool({
          name: 'charge',
          description: 'Charges a card: running it twice charges twice.',
          inputSchema: { type: 'object', properties: {} },
          permissions: ['card:charge'],
          handler: () => {
            ran.charge++;
            return { charged: true };
          },
        }),
      );
    });
  },
};
