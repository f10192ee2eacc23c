import { createInterface, type Interface } from 'node:readline/promises';
import type {
  Agent,
  AgentEvent,
  ApprovalQuestion,
  ApprovalRequestEvent,
  GuardrailVerdictRecord,
  Kernel,
  RunResult,
} from '../../core/index.ts';
import { errorMessage, HubosError, LOCAL, type RunEngine } from '../../core/index.ts';
import type { CliIO } from '../io.ts';
import { UsageError } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';
import { askAtTerminal } from './ask.ts';

const OFFLINE_NOTE =
  ' (the offline demo model: set OPENAI_API_KEY or ANTHROPIC_API_KEY, or "model" in agent.config.ts, for a real one)';

/** Where approval answers come from: a prompt needs a terminal. */
export type PromptInput = NodeJS.ReadableStream & { isTTY?: boolean };

const NO_TERMINAL = 'hubos run cannot ask for approval without a terminal';
const NO_TERMINAL_QUESTION = 'hubos run cannot ask a question without a terminal';

/**
 * `hubos run <agent> "<message>"`: streams the answer to stdout as it arrives and the tool calls
 * (and what they log) to stderr as they start and finish. A call the permission policy asks about
 * is prompted for (y/N), and a tool's question (`tc.elicit`) asked field by field, when stdin is a
 * terminal; otherwise the call is denied and the question declined. Exit 0 done, 1 failed, 130
 * interrupted (Ctrl-C cancels the run).
 */
export async function runCommand(
  positionals: string[],
  flags: KernelFlags & { session?: string; json?: boolean },
  io: CliIO,
  signal: AbortSignal,
  stdin: PromptInput = process.stdin,
): Promise<number> {
  const [name, ...words] = positionals;
  if (!name || words.length === 0)
    throw new UsageError('run needs an agent and a message, e.g. hubos run assistant "hello"', 'run');
  const message = words.join(' ');
  const kernel = await loadKernel('run', flags, io);
  try {
    const agent = kernel.agent(name);
    io.stderr.write(
      `agent "${agent.id}" · model ${agent.modelRef}${agent.model.provider === 'offline' ? OFFLINE_NOTE : ''}\n`,
    );
    const approvals = approver(agent, io, signal, stdin);
    let result: RunResult | undefined;
    let midLine = false;
    const listener = (event: AgentEvent) => {
      if (event.type === 'approval-request') {
        if (midLine && !flags.json) io.stderr.write('\n');
        approvals.answer(event);
      }
      if ((event.type === 'run-finish' || event.type === 'run-error') && event.runId === runId)
        result = event.result;
      if (flags.json) return;
      // A step's answer ends its line before what is said of the step.
      if (event.type === 'step-finish' && midLine) {
        io.stdout.write('\n');
        midLine = false;
      }
      show(event, io, midLine);
      if (event.type === 'text-delta') midLine = !event.delta.endsWith('\n');
    };
    // A recorded run like a server's (`hubos runs list` finds it), with this process as its instance.
    const engine = await cliEngine(kernel);
    const record = await engine.start(agent, message, {
      principal: LOCAL,
      via: 'cli',
      signal,
      listener,
      ...(flags.session ? { sessionId: flags.session } : {}),
    });
    const runId = record.id;
    const ended = await engine.wait(runId).finally(() => approvals.close());
    if (flags.json && result) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    if (!result && ended?.error) io.stderr.write(`✗ ${ended.error.message} [${ended.error.code}]\n`);
    return result ? exitCode(result) : 1;
  } finally {
    await kernel.close();
  }
}

/** The kernel's run engine, this process an instance: its heartbeat says it lives, so a server sharing the store leaves its runs be. */
async function cliEngine(kernel: Kernel): Promise<RunEngine> {
  await kernel.instance.start();
  return kernel.runs;
}

/**
 * Answers approval requests one at a time: a y/N prompt on a terminal, or a tool's question field
 * by field; without a terminal nobody can answer, so the call is denied (the question declined) at
 * once with a message saying so.
 */
function approver(agent: Agent, io: CliIO, signal: AbortSignal, stdin: PromptInput) {
  let queue = Promise.resolve();
  let prompt: Interface | undefined;
  const read = (text: string) => {
    prompt ??= createInterface({ input: stdin, terminal: false });
    io.stderr.write(text);
    return prompt.question('', { signal });
  };
  const answerQuestion = async (event: ApprovalRequestEvent, question: ApprovalQuestion) => {
    if (!stdin.isTTY) {
      io.stderr.write(
        `? ${event.tool} asks a question; declined: stdin is not a terminal, so nobody can answer\n`,
      );
      await agent.approve(event.runId, event.callId, { approved: false, reason: NO_TERMINAL_QUESTION });
      return;
    }
    const write = (text: string) => io.stderr.write(text);
    for (;;) {
      const answer = await askAtTerminal(question, event.tool, read, write);
      if (!answer.approved) {
        await agent.approve(event.runId, event.callId, {
          approved: false,
          reason: 'declined at the terminal',
        });
        return;
      }
      try {
        await agent.approve(event.runId, event.callId, answer);
        return;
      } catch (error) {
        // The answer does not fit the schema: say why, and ask again.
        if (!HubosError.is(error, 'APPROVAL_ANSWER_INVALID')) throw error;
        io.stderr.write(`  ${truncate(oneLine(errorMessage(error)), 1_000)}\n`);
      }
    }
  };
  const ask = async (event: ApprovalRequestEvent) => {
    if (event.question) return answerQuestion(event, event.question);
    const rule = event.rule ? ` · rule ask '${event.rule}'` : '';
    const permissions = event.permissions.length ? event.permissions.join(', ') : 'none declared';
    io.stderr.write(
      `? approval needed: ${event.tool} ${truncate(JSON.stringify(event.input) ?? '', 200)}\n  permissions: ${permissions}${rule}\n`,
    );
    if (!stdin.isTTY) {
      io.stderr.write(
        `  denied: stdin is not a terminal, so nobody can answer (allow it under "permissions" in agent.config.ts)\n`,
      );
      await agent.approve(event.runId, event.callId, { approved: false, reason: NO_TERMINAL });
      return;
    }
    const answer = await read(`  run ${event.tool}? [y/N] `);
    const approved = /^\s*y(es)?\s*$/i.test(answer);
    await agent.approve(
      event.runId,
      event.callId,
      approved ? { approved } : { approved, reason: 'answered no' },
    );
  };
  return {
    answer(event: ApprovalRequestEvent) {
      queue = queue.then(() =>
        ask(event).catch((error: unknown) => {
          // Expired, or the run ended, while the prompt waited: nothing left to answer.
          if (!signal.aborted) io.stderr.write(`  (not answered: ${errorMessage(error)})\n`);
        }),
      );
    },
    close() {
      prompt?.close();
    },
  };
}

function show(event: AgentEvent, io: CliIO, midLine: boolean): RunResult | undefined {
  const newline = midLine ? '\n' : '';
  switch (event.type) {
    case 'text-delta':
      io.stdout.write(event.delta);
      return undefined;
    case 'tool-call-end':
      io.stderr.write(`${newline}→ ${event.name} ${truncate(JSON.stringify(event.input) ?? '', 200)}\n`);
      return undefined;
    case 'tool-log':
      io.stderr.write(
        `${newline}  ${event.tool} [${event.level}] ${truncate(oneLine(event.message), 300)}\n`,
      );
      return undefined;
    case 'tool-result':
      io.stderr.write(
        event.call.ok
          ? `✓ ${event.call.name} (${event.call.durationMs} ms)\n`
          : `✗ ${event.call.name}: ${truncate(event.call.error?.message ?? '', 300)}\n`,
      );
      sayVerdicts(io, event.guardrails, '');
      return undefined;
    case 'step-finish':
      sayVerdicts(io, event.guardrails, newline);
      return undefined;
    case 'guardrail':
      sayVerdicts(io, event.verdicts, newline);
      return undefined;
    case 'run-finish':
      if (event.result.status === 'cancelled') io.stderr.write(`${newline}cancelled\n`);
      else if (event.result.stopReason === 'max-steps')
        io.stderr.write(`${newline}stopped after ${event.result.steps} steps (maxSteps)\n`);
      return event.result;
    case 'run-error':
      io.stderr.write(`${newline}✗ ${event.error.message} [${event.error.code}]\n`);
      return event.result;
    default:
      return undefined;
  }
}

/** A pass says nothing; a redaction or a trip is worth a line. */
function sayVerdicts(
  io: CliIO,
  verdicts: readonly GuardrailVerdictRecord[] | undefined,
  newline: string,
): void {
  for (const verdict of verdicts ?? []) {
    if (verdict.action === 'pass') continue;
    io.stderr.write(
      `${newline}⚑ guardrail ${verdict.guardrail} ${verdict.action === 'trip' ? 'tripped' : 'rewrote'} the ${verdict.stage}${verdict.reason ? `: ${truncate(oneLine(verdict.reason), 300)}` : ''}\n`,
    );
    newline = '';
  }
}

function exitCode(result: RunResult): number {
  return result.status === 'completed' ? 0 : result.status === 'cancelled' ? 130 : 1;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A tool's words on one line: no control characters (they could move the cursor or recolour the terminal). */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}
