// `hubos serve` (and `hubos mcp`) side of the cold-start bench: one agent with one plugin tool, `echo`,
// the openai provider pointed at the bench's fake model (FAKE_URL), served on PORT; defaults otherwise.
import { defineConfig, definePlugin, defineTool } from 'hubos';

const echo = definePlugin(() => ({
  name: 'bench-echo',
  apply(kernel) {
    kernel.hooks.registerTools.tap('bench-echo', (registry) => {
      registry.register(
        defineTool({
          name: 'echo',
          description: 'Echo the text back.',
          inputSchema: {
            type: 'object',
            properties: { text: { type: 'string' } },
            required: ['text'],
            additionalProperties: false,
          },
          handler: (_ctx, { input }) => input.text,
        }),
      );
    });
  },
}));

export default defineConfig({
  plugins: [echo()],
  model: 'openai:fake',
  openai: { baseURL: process.env.FAKE_URL, apiKey: 'x' },
  server: { host: '127.0.0.1', port: Number(process.env.PORT), rateLimit: false },
  agents: {
    bench: { instructions: 'You are a benchmark agent. Call echo, then answer.', tools: ['echo'] },
  },
});
