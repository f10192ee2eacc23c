/**
 * The repo's own config: what `npm start` serves (http://127.0.0.1:3000/). It shows every feature
 * built so far. Run `npm run hubos -- plugins` to see the plugins and the hooks they tap.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { defineConfig } from 'hubos';
import { aiSdkProviders, defineWorkflow } from 'hubos/plugins';
import { notes } from './examples/notes-plugin.ts';

// A declared workflow (POST /api/workflows/file-note/run, or the chat page's Workflows list): the
// steps are fixed, each step's output is kept under its id, and a run can be resumed after a crash.
const fileNote = defineWorkflow<{ title: string; text: string }>({
  name: 'file-note',
  description: 'Stamps a note with the time, has the assistant file it, then reports what is kept.',
  inputSchema: {
    type: 'object',
    properties: { title: { type: 'string', minLength: 1 }, text: { type: 'string', minLength: 1 } },
    required: ['title', 'text'],
    additionalProperties: false,
  },
  steps: [
    { id: 'now', kind: 'tool', tool: 'clock_now', input: {} },
    {
      id: 'file',
      kind: 'agent',
      agent: 'assistant',
      retries: 1,
      // The offline demo model calls a tool when the message is `/<tool> <json>`; a real model reads the request.
      input: ({ input, steps }) =>
        `Please file this note.\n/notes_add ${JSON.stringify({
          title: input.title,
          text: `${input.text} (${(steps.now as { formatted: string }).formatted})`,
        })}`,
    },
    {
      id: 'look',
      kind: 'parallel',
      steps: [
        { id: 'notes', kind: 'tool', tool: 'notes_list', input: {} },
        { id: 'files', kind: 'tool', tool: 'filesystem_list', input: {}, continueOnError: true },
      ],
    },
    {
      id: 'busy',
      kind: 'branch',
      if: ({ steps }) => (steps.notes as { titles: string[] }).titles.length > 10,
      steps: [{ id: 'advice', kind: 'function', run: () => 'Over ten notes: time to tidy up.' }],
    },
  ],
  output: ({ steps }) => ({
    kept: (steps.notes as { titles: string[] }).titles,
    advice: steps.advice ?? null,
  }),
});

export default defineConfig(({ mode }) => ({
  plugins: [
    // A local plugin module, imported as TypeScript; its options are checked against a Zod schema.
    notes({ maxNotes: 100 }),
    // Any AI SDK provider package: its models by reference, 'local:<model>' here (an OpenAI-compatible
    // server such as LM Studio or Ollama). `HUBOS_MODEL=local:qwen3-8b npm start` makes it the default.
    aiSdkProviders({
      local: createOpenAICompatible({
        name: 'local',
        baseURL: process.env.LOCAL_MODEL_URL ?? 'http://127.0.0.1:1234/v1',
      }),
    }),
    // A third-party tool package loaded by specifier, with options (it is shaped like an npm package).
    ['./test/fixtures/packages/hubos-plugin-clock/index.js', { timezone: 'Europe/Paris' }],
    // Falsy entries are skipped: a plugin only for some modes reads `mode === 'x' && plugin()`.
    mode === 'test' && null,
  ],
  // The default model: HUBOS_MODEL when set, else OpenAI or Anthropic when their key is set, else
  // the offline demo model. With HUBOS_FALLBACK_MODEL too it is a fallback chain: a call the first
  // cannot answer (429, 5xx, a dropped stream, after retries honouring Retry-After) goes to the
  // second, and text already streamed is never streamed again. Each retry is on the run's trace.
  ...(process.env.HUBOS_MODEL
    ? {
        model: [
          process.env.HUBOS_MODEL,
          ...(process.env.HUBOS_FALLBACK_MODEL ? [process.env.HUBOS_FALLBACK_MODEL] : []),
        ],
      }
    : {}),
  // At most 8 calls at once and 400k tokens a minute per provider, shared by every instance on the bus.
  rateLimits: {
    openai: { concurrency: 8, tokensPerMinute: 400_000 },
    anthropic: { concurrency: 8, tokensPerMinute: 400_000 },
  },
  // Agents by name. With no API key set, the offline demo model answers: type
  // `/notes_add {"title": "idea", "text": "..."}` or `/filesystem_list {}` to make it call a tool.
  agents: {
    assistant: {
      description: 'A helpful assistant that keeps notes, knows the time, and works with files.',
      instructions:
        'You are a concise assistant. Use the notes tools to remember things, the clock for dates, ' +
        'and the filesystem tools for files in the workspace.',
      tools: ['notes_*', 'clock_*', 'filesystem_*', 'bash', 'task', 'text_*'], // task: delegate to a sub-agent
      maxSteps: 10,
      // Guardrails: e-mail addresses, phone numbers, card numbers, IBANs and API keys are redacted
      // before the model sees the message and before an answer (held back a sentence at a time)
      // reaches the caller; text a tool read that looks like a prompt injection reaches the model
      // with a warning. A trip stops the run with GUARDRAIL_TRIPPED; every verdict is on the trace.
      guardrails: {
        input: ['pii'],
        output: ['pii', { use: 'max-length', max: 20_000 }],
        tool: [{ use: 'injection', action: 'flag' }],
      },
      // Memory across sessions, per API key and the userId a caller passes: a working memory
      // document read into its instructions (memory_update rewrites it) and memory_recall, a search
      // of the user's earlier conversations (SQLite FTS5 or PostgreSQL full text).
      memory: { working: { template: '# User\n- name:\n- preferences:\n- open tasks:' }, recall: true },
      // Hard limits on each run: past one it fails with BUDGET_EXCEEDED naming it (a caller's
      // `budget` in the run body can only lower them).
      budget: { tokens: 500_000, timeMs: 30 * 60_000 },
    },
  },
  // Agents created at run time (POST /api/cosmos/agents from the 'assistant' template), at most 20.
  cosmos: { maxAgents: 20, idleTtlMs: 30 * 60_000 },
  // A Stars team: the leader delegates to the worker with stars_delegate (POST /api/stars/desk/run).
  stars: {
    desk: {
      members: [
        { agent: 'assistant', role: 'leader', id: 'desk-lead' },
        { agent: 'assistant', role: 'worker', id: 'desk-helper' },
      ],
    },
  },
  // Workflow runs are leased to one instance; autoResume: a live instance resumes the runs of one
  // that died (finished steps are not run again). Without it they are marked interrupted.
  workflows: { definitions: [fileNote], autoResume: true },
  // MCP both ways. A stdio MCP server (written with the official SDK) whose tools join the registry
  // as text_count and text_slugify, under the permission mcp:text; and HubOS's own tools served to
  // MCP clients at http://127.0.0.1:3000/mcp and by `npm run hubos -- mcp` (stdio), with the notes
  // as resources (notes://<title>, subscribable), the notes_review prompt, the assistant as a prompt,
  // and notes_forget's confirmation asked through the client (elicitation).
  mcp: {
    servers: { text: { command: process.execPath, args: ['examples/text-mcp-server.ts'] } },
    serve: {
      tools: ['notes_*', 'clock_*', 'filesystem_read', 'filesystem_list', 'text_*'],
      agents: ['assistant'],
    },
  },
  // The HTTP server. Without API keys it serves one local caller on 127.0.0.1; beyond loopback give
  // each client its own key (apiKeys: ['<key>'] or { key, id, admin }): what one key starts,
  // another cannot see. Web pages cannot drive it: a Host allow-list (DNS rebinding), an Origin
  // check on changes, JSON read only as JSON. Names besides localhost and IPs go in allowedHosts.
  // Every run has a record from its first moment (GET /api/runs/:id, its events at
  // /api/runs/:id/events); ?async=true runs are queued and run maxConcurrentRuns at a time.
  server: {
    allowedHosts: ['.hubos.test'],
    rateLimit: { max: 600, maxAuthFailures: 20 },
    maxConcurrentRuns: 8,
  },
  // One machine: SQLite at .hubos/hubos.db and an in-process bus, nothing to set. Many: set
  // HUBOS_DATABASE_URL (postgres://...) and HUBOS_REDIS_URL (redis://...; an app adds the optional
  // package with `npm install ioredis`) and start several
  // `hubos serve` behind a load balancer: a run is read, streamed, approved and cancelled through
  // any of them, and the runs of an instance that dies are resumed by another one after leaseMs.
  bus: { leaseMs: 15_000 },
  // Every run is a row of the store's runs table: the page's Runs view (http://127.0.0.1:3000/#/runs)
  // lists them live with their traces, and runs one again on another model to compare; GET /api/runs
  // and `hubos runs list` find it, `hubos runs show <id>` prints it as a tree (sub-agents and team
  // members nested, with durations, tokens and cost). Each step is kept before the run goes
  // on (durability 'sync', the default), so a run whose instance dies resumes without making a
  // tool call twice. Ended runs are kept 30 days, and at most the newest 100,000; conversations
  // nobody wrote to for 90 days and A2A tasks over for 30 go too (`hubos prune` applies it now;
  // `--owner <id>` erases one caller's data).
  // recordSteps: false would keep no steps (no traces) for a little less work per run.
  runs: { durability: 'sync', recordSteps: true, retention: { maxAgeDays: 30, maxRuns: 100_000 } },
  sessions: { retention: { maxAgeDays: 90 } },
  a2a: { retention: { maxAgeDays: 30 } },
  // What a run sends the model: at 85% of the context window the older turns are summarized (the
  // last 4 turns and the run's own task stay verbatim; the studio's Conversation shows them all);
  // a tool result over 20k tokens is kept whole and the model gets its head and a handle to read
  // or search the rest with read_result.
  context: { compaction: { threshold: 0.85, keepTurns: 4 }, toolResults: { maxTokens: 20_000 } },
  // Context windows of models the built-in list does not know: the offline demo model's here.
  modelLimits: { offline: { contextWindow: 32_000, maxOutput: 4_000 } },
  // What a model call costs, in USD per million tokens, over the built-in list prices of the
  // OpenAI and Anthropic models: GET /api/usage and `hubos runs show` count it (the offline demo
  // model is free; a model with no price shows its tokens without a cost).
  pricing: { offline: { input: 0, output: 0 } },
  // Evals: `npm run hubos -- eval evals/assistant.jsonl --threshold contains=1` runs the
  // dataset's cases through the assistant, scores them, and stores the experiment (the page's
  // Experiments view, http://127.0.0.1:3000/#/experiments); a judge scorer (`{ use: 'judge',
  // rubric }` in a dataset) asks this model.
  evals: { judge: process.env.HUBOS_JUDGE_MODEL ?? 'openai:gpt-4.1-mini' },
  // Guardrails of every agent and every tool call (MCP tools/call and workflow tool steps too):
  // what a tool is asked to do never carries an API key.
  guardrails: { tool: [{ use: 'pii', kinds: ['api-key'] }] },
  // Traces: set OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://localhost:4318 for Jaeger or Tempo), or
  // `telemetry: { otlp: { endpoint } }` here, and every run's spans go there (after
  // `npm install @opentelemetry/sdk-trace-base @opentelemetry/resources
  // @opentelemetry/exporter-trace-otlp-http`); prompts and tool data only with `includeContent: true`.
  // No `sandbox` key: bash runs in bubblewrap wherever it works (no capabilities even as root, only
  // an allow-list of system folders and the workspace visible, only the workspace writable, no
  // network, nothing left running), and the server warns where it cannot, or leaves bash out when
  // the sandbox cannot reach the workspace.
  // Each command runs under limits that stop a fork bomb or a runaway allocation (these are the
  // defaults but the CPU time, which is cut from 600 s here).
  bash: { limits: { processes: 1024, memoryBytes: 2 * 1024 ** 3, cpuSeconds: 120, fileBytes: 1024 ** 3 } },
  // Built-in tools act in ./workspace. Reading is free, changing files and running commands
  // waits for a human (the chat page shows Approve / Deny), deleting is refused.
  permissions: {
    allow: ['fs:read', 'notes:*', 'mcp:text'],
    ask: ['fs:write', 'shell:exec'],
    deny: ['fs:delete'],
  },
}));
