import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'HubOS',
  description: 'A TypeScript agent framework: a minimal kernel with typed hooks, tools and plugins.',
  cleanUrls: true,
  lastUpdated: false,
  // The cache lives in the site's own node_modules/, which Biome and git both leave alone.
  cacheDir: './node_modules/.cache/vitepress',
  markdown: {
    config(md) {
      // `{{ steps.draft }}` in inline code is workflow template text, not a Vue interpolation.
      const codeInline = md.renderer.rules.code_inline;
      md.renderer.rules.code_inline = (tokens, idx, options, env, self) =>
        (codeInline
          ? codeInline(tokens, idx, options, env, self)
          : self.renderToken(tokens, idx, options)
        ).replace(/^<code/, '<code v-pre');
    },
  },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Reference', link: '/reference/server' },
      { text: 'Architecture', link: '/architecture' },
    ],
    sidebar: [
      {
        text: 'Introduction',
        items: [
          { text: 'Getting started', link: '/guide/getting-started' },
          { text: 'Configuration', link: '/guide/configuration' },
        ],
      },
      {
        text: 'Building blocks',
        items: [
          { text: 'Tools', link: '/guide/tools' },
          { text: 'Agents', link: '/guide/agents' },
          { text: 'Guardrails', link: '/guide/guardrails' },
          { text: 'Models', link: '/guide/models' },
          { text: 'Context and memory', link: '/guide/context-and-memory' },
          { text: 'Plugins', link: '/guide/plugins' },
          { text: 'Testing', link: '/guide/testing' },
          { text: 'Evals', link: '/guide/evals' },
        ],
      },
      {
        text: 'Many agents',
        items: [
          { text: 'Sub-agents', link: '/guide/subagents' },
          { text: 'Cosmos', link: '/guide/cosmos' },
          { text: 'Stars', link: '/guide/stars' },
          { text: 'Workflows', link: '/guide/workflows' },
        ],
      },
      {
        text: 'Connecting',
        items: [
          { text: 'MCP', link: '/guide/mcp' },
          { text: 'A2A', link: '/guide/a2a' },
          { text: 'AG-UI', link: '/guide/ag-ui' },
          { text: 'The studio', link: '/guide/studio' },
          { text: 'Deploying', link: '/guide/deploying' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'The server', link: '/reference/server' },
          { text: 'The hubos command', link: '/reference/cli' },
          { text: 'Errors', link: '/reference/errors' },
          { text: 'Security', link: '/reference/security' },
          { text: 'Benchmarks', link: '/reference/benchmarks' },
        ],
      },
      {
        text: 'Inside HubOS',
        items: [
          { text: 'Architecture', link: '/architecture' },
          { text: 'Contributing', link: '/contributing' },
        ],
      },
    ],
    outline: { level: [2, 3] },
    search: { provider: 'local' },
  },
});
