/**
 * Where a run or a tool call came from: `rest` (the HTTP API), `a2a`, `ag-ui`, `mcp` (a
 * `tools/call` or an `ask_<agent>` run), `stars` (a team member's run), `workflow` (a step),
 * `subagent` (a `task`'s run), `cli` (`hubos run`), `eval` (a case of `hubos eval` or `evaluate()`), or `direct` — code that called `agent.run()`
 * or `kernel.tools.call()` without saying. Kernel tool hooks see it as `via`.
 */
export type CallSurface =
  | 'rest'
  | 'a2a'
  | 'ag-ui'
  | 'mcp'
  | 'stars'
  | 'workflow'
  | 'subagent'
  | 'cli'
  | 'eval'
  | 'direct';

/** Every surface, for checks of input from outside (a `via` that must be one of them). */
export const CALL_SURFACES: readonly CallSurface[] = Object.freeze([
  'rest',
  'a2a',
  'ag-ui',
  'mcp',
  'stars',
  'workflow',
  'subagent',
  'cli',
  'eval',
  'direct',
]);
