import {
  HubosError,
  type KernelView,
  type ResourceInfo,
  type ResourceTemplate,
  sessionKey,
} from '../../../core/index.ts';

/** Session ids as callers name them (the REST routes' and `ask_<agent>`'s rule). */
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** How many sessions `resources/list` shows (any of the caller's can still be read by its URI). */
export const LISTED_SESSIONS = 100;

export const sessionUri = (agent: string, session: string): string =>
  `hubos://sessions/${encodeURIComponent(agent)}/${encodeURIComponent(session)}`;

/**
 * The caller's stored conversations as resources: `hubos://sessions/{agent}/{session}`, the
 * messages as JSON. Only the calling principal's: the URI names a session id as the caller knows
 * it, and it is read from the caller's own key (`sessionKey`), so another API key's sessions are
 * neither listed nor readable, whatever the URI says.
 */
export function storedSessions(kernel: Pick<KernelView, 'listAgents' | 'sessions'>): ResourceTemplate {
  return {
    uriTemplate: 'hubos://sessions/{agent}/{session}',
    name: 'session',
    title: 'Stored conversations',
    description: 'Your stored conversation with an agent (its messages, as JSON)',
    mimeType: 'application/json',
    permissions: ['sessions:read'],
    list: async ({ principal = 'local' }) => {
      const listed: ResourceInfo[] = [];
      for (const agent of kernel.listAgents()) {
        if (agent.spec.internal) continue;
        for (const session of await ownSessions(kernel, agent.id, principal)) {
          if (listed.length >= LISTED_SESSIONS) return listed;
          listed.push({
            uri: sessionUri(agent.id, session),
            name: `${agent.id}/${session}`,
            mimeType: 'application/json',
          });
        }
      }
      return listed;
    },
    read: async (uri, { agent = '', session = '' }, { principal = 'local' }) => {
      const known = kernel
        .listAgents()
        .find((candidate) => candidate.id === agent && !candidate.spec.internal);
      const messages =
        known && SESSION_ID.test(session)
          ? await kernel.sessions.load(agent, sessionKey(principal, session))
          : [];
      if (messages.length === 0)
        throw new HubosError(
          'RESOURCE_NOT_FOUND',
          `you have no stored session "${session}" with an agent "${agent}": resources/list shows yours`,
        );
      return [{ uri, mimeType: 'application/json', text: JSON.stringify(messages, null, 2) }];
    },
    complete: {
      // Only agents the caller has sessions with: naming others would tell which agents exist.
      agent: async (typed, { principal = 'local', store }) => {
        if (!store) return [];
        const found: string[] = [];
        for (const candidate of kernel.listAgents()) {
          if (candidate.spec.internal || !candidate.id.startsWith(typed)) continue;
          if ((await ownSessions(kernel, candidate.id, principal)).length > 0) found.push(candidate.id);
        }
        return found;
      },
    },
  };
}

/**
 * The session ids `principal` has stored with an agent: its sessions by their owner column, as
 * the caller names them (`sessionKey(principal, id)` gives the stored id back, so no other caller's
 * session ever matches).
 */
async function ownSessions(
  kernel: Pick<KernelView, 'sessions'>,
  agent: string,
  principal: string,
  limit = LISTED_SESSIONS,
): Promise<string[]> {
  const prefix = sessionKey(principal, '');
  const ids: string[] = [];
  for (const { sessionId: stored } of await kernel.sessions.listOwned(principal, { agent, limit })) {
    const id = stored.slice(prefix.length);
    if (SESSION_ID.test(id) && sessionKey(principal, id) === stored) ids.push(id);
  }
  return ids;
}
