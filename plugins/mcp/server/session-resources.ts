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
    list: async ({ store, principal = 'local' }) => {
      const listed: ResourceInfo[] = [];
      for (const agent of kernel.listAgents()) {
        if (agent.spec.internal) continue;
        for (const session of await ownSessions(store, agent.id, principal)) {
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
          if ((await ownSessions(store, candidate.id, principal)).length > 0) found.push(candidate.id);
        }
        return found;
      },
    },
  };
}

/**
 * The session ids `principal` has stored with an agent. Sessions keep each message under
 * `<sessionKey>/<n>` in the `sessions:<agent>` namespace; a key is the caller's when
 * `sessionKey(principal, id)` gives it back, so no other caller's key ever matches.
 */
async function ownSessions(store: KernelView['store'], agent: string, principal: string): Promise<string[]> {
  const prefix = sessionKey(principal, '');
  const ids = new Set<string>();
  for (const key of await store.list(`sessions:${agent}`, prefix)) {
    const stored = key.slice(0, key.indexOf('/'));
    const id = stored.slice(prefix.length);
    if (SESSION_ID.test(id) && sessionKey(principal, id) === stored) ids.add(id);
  }
  return [...ids];
}
