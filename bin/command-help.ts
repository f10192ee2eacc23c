// Each command's own --help: what it does, its arguments, its options and an example. Plain text
// and nothing imported, so `hubos <command> --help` answers before the CLI or the kernel loads.

interface CommandHelp {
  synopsis: string;
  summary: string;
  arguments?: [string, string][];
  options?: [string, string][];
  examples: string[];
  /** Whether it loads a config (then --config and --mode apply). */
  config?: boolean;
}

const JSON_OPTION: [string, string] = ['--json', 'print it as JSON'];

const HELP: Record<string, CommandHelp> = {
  serve: {
    synopsis: 'hubos serve [--port <n>] [--host <h>]',
    summary:
      "Serves the config's agents over HTTP (REST + SSE, A2A, AG-UI, chat page) until Ctrl-C or SIGTERM, which stop it gracefully.",
    options: [
      ['--port <n>', 'the port, 0 to 65535 (0 picks a free one); default: server.port, else PORT, else 3000'],
      ['--host <h>', 'the address to listen on (default 127.0.0.1; another needs API keys)'],
    ],
    examples: ['hubos serve', 'hubos serve --port 8080', 'PORT=8080 hubos serve'],
    config: true,
  },
  run: {
    synopsis: 'hubos run <agent> <message> [--session <id>] [--json]',
    summary:
      'Runs an agent: the answer streams to stdout, tool calls to stderr. Exit 0 done, 1 failed, 130 interrupted.',
    arguments: [
      ['<agent>', 'a name from the config\'s "agents" (hubos validate lists problems)'],
      ['<message>', 'what to ask; several words are joined with spaces'],
    ],
    options: [
      ['--session <id>', 'continue (or start) this conversation'],
      ['--json', 'print the run result as JSON instead of streaming'],
    ],
    examples: ['hubos run assistant "what is in README.md?"', 'hubos run assistant --session s1 "and then?"'],
    config: true,
  },
  tools: {
    synopsis: 'hubos tools [--json]',
    summary: 'Lists the registered tools with their descriptions, permissions and input schemas.',
    options: [JSON_OPTION],
    examples: ['hubos tools', 'hubos tools --json'],
    config: true,
  },
  plugins: {
    synopsis: 'hubos plugins [--json]',
    summary: "Lists the plugins in apply order, and each hook's taps in call order.",
    options: [JSON_OPTION],
    examples: ['hubos plugins'],
    config: true,
  },
  validate: {
    synopsis: 'hubos validate',
    summary:
      'Loads the config, boots it for real, and checks that the agents, tools, teams and workflows it names exist. Exit 0 when valid, 1 with the list of problems when not.',
    examples: ['hubos validate', 'hubos validate --config staging.config.ts'],
    config: true,
  },
  init: {
    synopsis: 'hubos init [--force]',
    summary:
      'Makes the current folder a working app: agent.config.ts with an agent, a local tool plugin and its test, and package.json.',
    options: [['--force', 'overwrite files that exist']],
    examples: ['hubos init'],
  },
  workflow: {
    synopsis: 'hubos workflow list | run <name> [<input JSON>] [--run-id <id>] | resume <runId> [--json]',
    summary:
      "Lists the config's workflows, runs one, or resumes a run: step progress to stderr, the output to stdout. Exit 0 completed, 1 failed, 130 interrupted.",
    arguments: [
      ['list', 'the workflows and their steps'],
      ['run <name> [<input JSON>]', 'run a workflow with this input (default {})'],
      ['resume <runId>', 'continue a run that did not complete'],
    ],
    options: [
      ['--run-id <id>', 'the id of the new run (run only)'],
      ['--json', 'print the list, or the whole run result, as JSON'],
    ],
    examples: [
      'hubos workflow list',
      `hubos workflow run release '{"version": "1.2.0"}'`,
      'hubos workflow resume 01J9Z…',
    ],
    config: true,
  },
  runs: {
    synopsis: 'hubos runs list [filters] [--json] | show <id> [--json] | export <id> [--out <file>]',
    summary:
      "Lists the runs in the config's store, newest first, shows one run and its model and tool calls as a tree with durations, tokens and cost, or exports one (record, steps, totals) as JSON. Reads the store directly: no server needed.",
    arguments: [
      ['list', 'the runs, newest first'],
      ['show <id>', 'one run and its steps, with tokens and cost'],
      ['export <id>', 'one run, its steps and its token and cost totals as JSON'],
    ],
    options: [
      ['--agent <name>', "only this agent's runs"],
      ['--status <state>', 'queued, running, completed, cancelled, failed or interrupted'],
      ['--via <face>', 'rest, a2a, ag-ui, mcp, stars, workflow, subagent or cli'],
      ['--session <id>', 'only runs of this session'],
      ['--since <time>', 'runs from this time on (ISO 8601 or ms)'],
      ['--until <time>', 'runs before this time'],
      ['--limit <n>', 'at most n runs (1-200, default 50)'],
      ['--q <text>', 'only runs whose input holds this text, whatever its case'],
      ['--json', 'print JSON'],
      ['--out <file>', 'export: write the JSON to this file instead of stdout'],
    ],
    examples: [
      'hubos runs list --status failed',
      'hubos runs show 019ac3f2-…',
      'hubos runs export 019ac3f2-… --out run.json',
    ],
    config: true,
  },
  prune: {
    synopsis: 'hubos prune [--owner <id>] [--json]',
    summary:
      "Deletes, now and in full, what the config's retention no longer keeps: ended runs with their steps and decided approvals (runs.retention), idle sessions (sessions.retention), A2A tasks over and idle (a2a.retention); or, with --owner, erases everything one principal owns: its ended runs and steps, sessions, approvals and A2A tasks.",
    options: [
      ['--owner <id>', "erase this principal's data instead (e.g. the id of an API key)"],
      ['--json', 'print what went as JSON'],
    ],
    examples: ['hubos prune', 'hubos prune --owner alice'],
    config: true,
  },
  eval: {
    synopsis:
      'hubos eval <dataset> [--agent <name>] [--concurrency <n>] [--threshold <scorer>=<min>]… [--scorer <name>]… [--baseline <id>|latest] [--reporter json=<file>|junit=<file>]… [--name <name>] [--json]',
    summary:
      'Runs each case of a dataset through an agent (a recorded run each, its trace in the studio), scores it, stores the experiment, and prints a table of the results. Exit 0 when every threshold is met, 1 when one is not, 2 for a bad command line, 130 when Ctrl-C cancelled it.',
    arguments: [['<dataset>', 'a .jsonl, .csv, .json, .ts, .js or .mjs file of cases']],
    options: [
      ['--agent <name>', "the agent to evaluate (default: the config's only agent)"],
      ['--concurrency <n>', 'how many cases run at once, 1 to 1000 (default 10)'],
      [
        '--threshold <scorer>=<min>',
        "the scorer's minimum mean, 0 to 1 (over the dataset's thresholds); repeatable",
      ],
      [
        '--scorer <name>',
        "score with this scorer (default: the dataset's, else those its cases' expectations call for); repeatable",
      ],
      [
        '--baseline <id>|latest',
        'compare with an earlier experiment (latest: the newest of this agent and dataset); ▼ marks a case that got worse',
      ],
      ['--reporter json=<file>', 'also write the results as JSON; repeatable'],
      [
        '--reporter junit=<file>',
        'also write JUnit XML: a testsuite per scorer, failures below its threshold',
      ],
      ['--name <name>', 'name the experiment (default: the dataset and the time)'],
      ['--json', 'print the results as JSON instead of the table'],
    ],
    examples: [
      'hubos eval evals/support.jsonl --threshold contains=0.9',
      'hubos eval evals/qa.csv --agent support --baseline latest --reporter junit=reports/eval.xml',
    ],
    config: true,
  },
  mcp: {
    synopsis: 'hubos mcp | hubos mcp list [--json]',
    summary:
      "Serves the config's tools to an MCP client over stdin/stdout; or, with list, shows the configured MCP servers, their state and tools (exit 1 when one is not ready).",
    arguments: [['list', 'show the configured MCP servers instead of serving']],
    options: [['--json', 'with list: print it as JSON']],
    examples: ['hubos mcp', 'hubos mcp list'],
    config: true,
  },
  'create-plugin': {
    synopsis: 'hubos create-plugin <name> [--dir <folder>]',
    summary: 'Scaffolds a tool plugin package that builds, with a passing test.',
    arguments: [['<name>', 'an npm package name, e.g. hubos-plugin-weather or @me/weather']],
    options: [['--dir <folder>', 'where to write it (default: the name without its scope)']],
    examples: ['hubos create-plugin hubos-plugin-weather'],
  },
};

/** The commands that have help: every command of the CLI. */
export const COMMAND_NAMES = Object.keys(HELP);

/** The help of a command, or undefined when there is no such command. */
export function commandHelp(command: string): string | undefined {
  if (!Object.hasOwn(HELP, command)) return undefined;
  const help = HELP[command]!;
  const options: [string, string][] = [
    ...(help.options ?? []),
    ...(help.config
      ? ([
          ['--config <file>', 'use this config instead of searching for agent.config.*'],
          ['--mode <mode>', 'passed to config functions (default: NODE_ENV or development)'],
        ] as [string, string][])
      : []),
    ['-h, --help', 'show this help'],
  ];
  const lines = [`Usage: ${help.synopsis}`, '', help.summary, ''];
  if (help.arguments) lines.push('Arguments:', ...table(help.arguments), '');
  lines.push('Options:', ...table(options), '');
  lines.push(help.examples.length > 1 ? 'Examples:' : 'Example:', ...help.examples.map((e) => `  ${e}`));
  return `${lines.join('\n')}\n`;
}

function table(rows: [string, string][]): string[] {
  return rows.map(([name, text]) =>
    name.length < 28 ? `  ${name.padEnd(28)}${text}` : `  ${name}\n  ${''.padEnd(28)}${text}`,
  );
}
