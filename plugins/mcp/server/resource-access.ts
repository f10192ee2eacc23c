import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type {
  PermissionSubject,
  PermissionVerdict,
  Policy,
  Prompt,
  Resource,
  ResourceTemplate,
} from '../../../core/index.ts';
import { describeVerdict } from '../../../core/internal.ts';
import { askApproval, canElicit } from './approval.ts';

/**
 * What the permission policy sees of a resource: its URI (a template's URI template) as the name,
 * and its permissions. Kept per resource, so the policy's per-subject memo holds.
 */
const subjects = new WeakMap<Resource | ResourceTemplate | Prompt, PermissionSubject>();

function subjectOf(entry: Resource | ResourceTemplate | Prompt): PermissionSubject {
  let subject = subjects.get(entry);
  if (!subject) {
    // A prompt is named apart from tools, so name rules meant for tools (`notes_*`) leave it alone.
    const name =
      'uriTemplate' in entry ? entry.uriTemplate : 'uri' in entry ? entry.uri : `prompt:${entry.name}`;
    subject = { name, ...(entry.permissions ? { permissions: entry.permissions } : {}) };
    subjects.set(entry, subject);
  }
  return subject;
}

/** The policy's verdict on reading a resource (or any resource of a template), or on using a prompt. */
export function resourceVerdict(
  policy: Policy,
  entry: Resource | ResourceTemplate | Prompt,
): PermissionVerdict {
  return policy.decide(subjectOf(entry));
}

export interface ReadAccess {
  server: Server;
  policy: Policy;
  /** The request reading it: an approval question travels with it. */
  requestId: RequestId;
  signal: AbortSignal;
}

/**
 * Lets a read of `uri` go ahead under the config's permission policy, as a tool call would: `deny`
 * refuses, `ask` asks the client's user through elicitation (refused when it cannot ask).
 * Throws an MCP error saying why and what to change.
 */
export function checkRead(
  entry: Resource | ResourceTemplate,
  uri: string,
  access: ReadAccess,
): Promise<void> {
  return checkAccess(
    entry,
    { doing: `reading "${uri}"`, asking: `reading the resource "${uri}"`, done: `"${uri}" was not read` },
    access,
  );
}

/** The same for a prompt with `permissions`: getting it is decided as reading a resource is. */
export function checkPromptUse(prompt: Prompt, access: ReadAccess): Promise<void> {
  const name = `the prompt "${prompt.name}"`;
  return checkAccess(
    prompt,
    { doing: `getting ${name}`, asking: `getting ${name}`, done: `${name} was not given` },
    access,
  );
}

async function checkAccess(
  entry: Resource | ResourceTemplate | Prompt,
  words: { doing: string; asking: string; done: string },
  access: ReadAccess,
): Promise<void> {
  const verdict = resourceVerdict(access.policy, entry);
  if (verdict.decision === 'allow') return;
  const why = describeVerdict(verdict, subjectOf(entry));
  if (verdict.decision === 'deny') {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `the permission policy denies ${words.doing}: ${why}. To allow it, remove or narrow that rule in the config's \`permissions.deny\`.`,
    );
  }
  if (!canElicit(access.server)) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `${words.doing} needs approval (${why}), and this MCP client cannot ask you for it (it does not support elicitation). ` +
        "To do it without asking, move the rule from the config's `permissions.ask` to `permissions.allow`, or use a client that supports elicitation.",
    );
  }
  const answer = await askApproval(access.server, {
    action: words.asking,
    why,
    timeoutMs: access.policy.approvalTimeoutMs,
    requestId: access.requestId,
    signal: access.signal,
  });
  if (!answer.approved) throw new McpError(ErrorCode.InvalidRequest, `${words.done}: ${answer.reason}.`);
}
