/**
 * The repo's own config: what `npm start` runs. It shows every feature built so far.
 * Run `npm run hubos -- plugins` to see the plugins and the hooks they tap.
 */
import { defineConfig } from 'hubos';
import { notes } from './examples/notes-plugin.ts';

export default defineConfig(({ mode }) => ({
  plugins: [
    // A local plugin module, imported as TypeScript (which imports another .ts file).
    notes({ maxNotes: 100 }),
    // A third-party tool package loaded by specifier, with options (it is shaped like an npm package).
    ['./test/fixtures/packages/hubos-plugin-clock/index.js', { timezone: 'Europe/Paris' }],
    // Falsy entries are skipped: a plugin only for some modes reads `mode === 'x' && plugin()`.
    mode === 'test' && null,
  ],
  // Agents by name. With no API key set, the offline demo model answers: type
  // `/notes_add {"title": "idea", "text": "..."}` to make it call a tool.
  agents: {
    assistant: {
      description: 'A helpful assistant that keeps notes and knows the time.',
      instructions:
        'You are a concise assistant. Use the notes tools to remember things and the clock for dates.',
      tools: ['notes_*', 'clock_*'],
      maxSteps: 10,
    },
  },
}));
