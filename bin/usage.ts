export const USAGE = `Usage: hubos <command> [options]

Commands:
  serve [--port <n>] [--host <h>]
                              serve the config's agents over HTTP (REST + SSE, A2A, AG-UI, chat page)
  run <agent> <message> [--session <id>] [--json]
                              run an agent: the answer streams to stdout, tool calls to stderr
  tools [--json]              list registered tools with their descriptions and input schemas
  plugins [--json]            list plugins in apply order and each hook's taps in call order
  validate                    load the config and check what it names exists; exit 0 when valid, 1 when not
  init [--force]              write a starter agent.config.ts in the current folder
  workflow list [--json]      list the config's workflows and their steps
  workflow run <name> [<input JSON>] [--run-id <id>] [--json]
                              run a workflow: step progress to stderr, its output to stdout
  workflow resume <runId> [--json]
                              continue a run that did not complete (after a crash, a failure, Ctrl-C)
  runs list [--agent <a>] [--status <s>] [--via <v>] [--session <id>] [--since <t>] [--limit <n>] [--json]
                              list the store's runs, newest first
  runs show <id> [--json]     show a run and its model and tool calls as a tree, with durations, tokens and cost
  runs export <id> [--out <file>]
                              write a run, its steps and its token and cost totals as JSON
  prune [--owner <id>] [--json]
                              apply runs, sessions and a2a retention now; with --owner, erase everything that principal owns
  eval <dataset> [--agent <a>] [--threshold <scorer>=<min>]… [--baseline <id>|latest] [--reporter json=<f>|junit=<f>]…
                              run a dataset's cases through an agent, score them and store the experiment
  mcp                         serve the config's tools to an MCP client over stdin/stdout
  mcp list [--json]           list the configured MCP servers, their state and their tools
  create-plugin <name> [--dir <folder>]
                              scaffold a tool plugin package (builds, with a passing test)

Options:
  --config <file>             use this config instead of searching for agent.config.{ts,mts,cts,js,mjs,cjs}
  --mode <mode>               passed to config functions (default: NODE_ENV or development)
  -h, --help                  show this help
  -v, --version               show the version

"hubos help <command>" (or "hubos <command> --help") shows a command's arguments, options and an example.
`;
