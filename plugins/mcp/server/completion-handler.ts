import {
  CompleteRequestSchema,
  type CompleteResult,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { type ArgumentCompleter, errorMessage } from '../../../core/index.ts';
import { resourceVerdict } from './resource-access.ts';
import type { ServeContext } from './serve-context.ts';
import { servedPrompts } from './served-prompts.ts';
import { servedTemplates } from './served-resources.ts';
import { checkUriLength } from './subscriptions.ts';

/** MCP's most completion values in one answer. */
const MAX_VALUES = 100;

const NONE: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

/**
 * `completion/complete`: a prompt's argument or a resource template's variable, completed by the
 * `complete` function its owner gave for it; no values where it gave none. A template the policy
 * does not simply allow reading completes nothing (its values would tell what it holds).
 */
export function serveCompletions(ctx: ServeContext): void {
  const { server, kernel, serve } = ctx;
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument, context } = request.params;
    let completer: ArgumentCompleter | undefined;
    if (ref.type === 'ref/prompt') {
      const target = servedPrompts(ctx).get(ref.name);
      if (!target)
        throw new McpError(ErrorCode.InvalidParams, `no prompt named "${ref.name}" is served here`);
      if (target.kind === 'prompt' && resourceVerdict(ctx.policy, target.prompt).decision !== 'allow')
        return NONE;
      completer = target.kind === 'prompt' ? target.prompt.complete?.[argument.name] : undefined;
    } else {
      checkUriLength(ref.uri);
      const template = servedTemplates(kernel, serve).find((candidate) => candidate.uriTemplate === ref.uri);
      if (!template) {
        // A plain resource has nothing to complete; a URI nobody serves is the caller's mistake.
        if (kernel.resources.find(ref.uri)) return NONE;
        throw new McpError(ErrorCode.InvalidParams, `no resource template "${ref.uri}" is served here`);
      }
      // Its values would tell what it holds: completed only where reading needs nobody's approval.
      if (resourceVerdict(ctx.policy, template).decision !== 'allow') return NONE;
      completer = template.complete?.[argument.name];
    }
    if (!completer) return NONE;
    let values: unknown;
    try {
      values = await completer(argument.value, {
        arguments: context?.arguments ?? {},
        principal: ctx.principal,
        store: kernel.store,
      });
    } catch (error) {
      kernel.logger.debug(`mcp: completing "${argument.name}" failed: ${errorMessage(error)}`);
      return NONE;
    }
    const found = [...new Set(Array.isArray(values) ? values.filter((v) => typeof v === 'string') : [])];
    return {
      completion: {
        values: found.slice(0, MAX_VALUES),
        total: found.length,
        hasMore: found.length > MAX_VALUES,
      },
    };
  });
}
