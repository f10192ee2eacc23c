import {
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  ListPromptsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { PromptArgument, PromptResult } from '../../../core/index.ts';
import { didYouMean } from '../../../core/internal.ts';
import { toMcpError } from './mcp-errors.ts';
import { page } from './pages.ts';
import { checkPromptUse, resourceVerdict } from './resource-access.ts';
import type { ServeContext } from './serve-context.ts';
import {
  AGENT_PROMPT_ARGUMENTS,
  describePrompt,
  type ServedPrompt,
  servedPrompts,
} from './served-prompts.ts';

/** `prompts/list` and `prompts/get` over the kernel's prompts and the served agents. */
export function servePrompts(ctx: ServeContext): void {
  const { server, kernel } = ctx;

  server.setRequestHandler(ListPromptsRequestSchema, (request) => {
    const { items, nextCursor } = page(
      [...servedPrompts(ctx).values()]
        .filter(
          (served) =>
            served.kind === 'agent' || resourceVerdict(ctx.policy, served.prompt).decision !== 'deny',
        )
        .map(describePrompt),
      request.params?.cursor,
    );
    return { prompts: items, ...(nextCursor ? { nextCursor } : {}) };
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra): Promise<GetPromptResult> => {
    const { name, arguments: args = {} } = request.params;
    const served = servedPrompts(ctx);
    const target = served.get(name);
    if (!target) {
      const known = [...served.keys()].join(', ') || 'none';
      throw new McpError(
        ErrorCode.InvalidParams,
        `no prompt named "${name}" is served here${didYouMean(name, served.keys())} (prompts: ${known})`,
      );
    }
    checkArguments(target, args);
    if (target.kind === 'agent') return agentPrompt(target, args.message ?? '');
    await checkPromptUse(target.prompt, {
      server,
      policy: ctx.policy,
      requestId: extra.requestId,
      signal: extra.signal,
    });
    let result: PromptResult;
    try {
      result = await target.prompt.get(args, {
        store: kernel.store,
        principal: ctx.principal,
        signal: extra.signal,
      });
    } catch (error) {
      throw toMcpError(error, `the prompt "${name}"`);
    }
    if (!Array.isArray(result?.messages) || !result.messages.every(isMessage))
      throw new McpError(
        ErrorCode.InternalError,
        `the prompt "${name}" gave no valid messages: its get() must return { messages: [{ role: 'user' | 'assistant', content: { type, ... } }] }`,
      );
    return {
      ...(result.description !== undefined ? { description: result.description } : {}),
      messages: result.messages as GetPromptResult['messages'],
    };
  });
}

/** Every required argument must be given: a clear error names those missing, and all it takes. */
function checkArguments(target: ServedPrompt, args: Record<string, string>): void {
  const declared: PromptArgument[] =
    target.kind === 'agent' ? AGENT_PROMPT_ARGUMENTS : (target.prompt.arguments ?? []);
  const missing = declared.filter((argument) => argument.required && args[argument.name] === undefined);
  if (missing.length === 0) return;
  const names = missing.map((argument) => `"${argument.name}"`).join(', ');
  const all = declared
    .map((argument) => `${argument.name}${argument.required ? ' (required)' : ''}`)
    .join(', ');
  throw new McpError(
    ErrorCode.InvalidParams,
    `the prompt "${target.name}" needs the argument${missing.length > 1 ? 's' : ''} ${names}: pass them in \`arguments\` (it takes ${all})`,
  );
}

/** An agent offered as a prompt: the user's message, for the client's model to ask the agent with. */
function agentPrompt(target: Extract<ServedPrompt, { kind: 'agent' }>, message: string): GetPromptResult {
  return {
    description: `Ask the agent "${target.agent.id}"`,
    messages: [
      {
        role: 'user',
        content: {
          type: 'text',
          text: `Ask the agent "${target.agent.id}" with the ${target.name} tool, and tell me its answer:\n\n${message}`,
        },
      },
    ],
  };
}

/** A message a client can take (a prompt may return anything at run time). */
function isMessage(message: unknown): boolean {
  const { role, content } = (message ?? {}) as { role?: unknown; content?: { type?: unknown } | null };
  return (role === 'user' || role === 'assistant') && typeof content?.type === 'string';
}
