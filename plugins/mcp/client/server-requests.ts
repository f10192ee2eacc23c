import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../../core/index.ts';
import type { CallsInFlight } from './calls-in-flight.ts';
import { answerElicitation } from './elicitation.ts';
import { answerSampling, type SamplingPolicy } from './sampling.ts';

/** What answering one server's requests takes. */
export interface ServerRequestsContext {
  server: string;
  calls: CallsInFlight;
  /** Undefined: sampling is not offered. */
  sampling: SamplingPolicy | undefined;
  elicitation: boolean;
  /** The sandbox root: the one root the server is told about. */
  workspaceRoot: string;
  logger: Logger;
}

/** What HubOS tells a server it can do: roots always; sampling and form elicitation unless turned off. */
export function clientCapabilities(context: ServerRequestsContext): ClientCapabilities {
  return {
    roots: { listChanged: false },
    ...(context.sampling ? { sampling: {} } : {}),
    ...(context.elicitation ? { elicitation: { form: {} } } : {}),
  };
}

/**
 * Answers what the server asks of HubOS: `roots/list` with the workspace, `sampling/createMessage`
 * and `elicitation/create` through the HubOS tool call they belong to (see `CallsInFlight`).
 */
export function answerServerRequests(client: Client, context: ServerRequestsContext): void {
  const { server, calls, sampling, logger } = context;
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: pathToFileURL(context.workspaceRoot).href, name: 'workspace' }],
  }));
  if (sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      const owner = calls.owner('sampling');
      if ('refusal' in owner)
        throw new McpError(ErrorCode.InvalidRequest, `sampling refused: ${owner.refusal}`);
      return answerSampling(request.params, owner.call, sampling, server);
    });
  }
  if (context.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request) =>
      answerElicitation(
        request.params as ElicitRequestFormParams,
        calls.owner('elicitation'),
        server,
        logger,
      ),
    );
  }
}
