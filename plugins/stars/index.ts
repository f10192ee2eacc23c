import type { KernelView, Plugin } from '../../core/index.ts';
import { getStarsHooks } from './hooks.ts';
import { tapStarsRoutes } from './routes.ts';
import { Stars } from './stars.ts';
import { endOrphanedTeamRuns } from './team-run-takeover.ts';
import { STARS_CONFIG_SCHEMA, type StarsConfig } from './types.ts';

export { STARS_ERROR_CODES, type StarsErrorCode } from './errors.ts';
export { getStarsHooks, type StarsHooks } from './hooks.ts';
export { STARS_JOIN_BODY, STARS_MESSAGE_BODY, STARS_RUN_BODY, starsRoutes } from './routes.ts';
export {
  DEFAULT_HISTORY_LIMIT,
  DEFAULT_MAX_TURNS,
  STARS_NAMESPACE,
  Stars,
  type StarsRunOptions,
} from './stars.ts';
export { BROADCAST_TOOL, DELEGATE_TOOL, SEND_TOOL } from './team-run.ts';
export {
  RoleLeader,
  RoleWorker,
  STARS_CONFIG_SCHEMA,
  type StarsConfig,
  type StarsDelegation,
  type StarsEvent,
  type StarsMember,
  type StarsMemberConfig,
  type StarsMessage,
  type StarsOptions,
  type StarsRole,
  type StarsRunResult,
  type StarsTeamConfig,
} from './types.ts';

declare module 'hubos' {
  interface HubosConfig {
    /** Stars teams by name: members (template + role) and limits. */
    stars?: StarsConfig;
  }
}

declare module 'hubos' {
  interface HubosServices {
    /** The kernel's Stars teams by name (filled in `ready`). */
    stars: ReadonlyMap<string, Stars>;
  }
}

/**
 * The `stars` plugin (needs `cosmos`): owns the `stars` config key (the options win over it) and,
 * once the kernel is ready, builds each team, creating its member agents in Cosmos from their
 * templates; the teams are the `stars` service, and HubOS serves them under `/api/stars`.
 */
export default function stars(options: StarsConfig = {}): Plugin {
  return {
    name: 'stars',
    dependencies: ['cosmos'],
    provides: ['stars'],
    configSchema: { stars: STARS_CONFIG_SCHEMA },
    apply(kernel: KernelView) {
      const built = new Map<string, Stars>();
      kernel.provide('stars', built);
      kernel.hooks.ready.tapPromise('stars', async ({ config }) => {
        // A team run orphaned by a dead instance ends interrupted, saying why.
        endOrphanedTeamRuns(kernel.runs);
        const cosmos = kernel.service('cosmos');
        for (const [name, team] of Object.entries({ ...config.stars, ...options })) {
          const stars = new Stars(cosmos, name, {
            store: kernel.store,
            ...(team.historyLimit !== undefined ? { historyLimit: team.historyLimit } : {}),
            ...(team.maxTurns !== undefined ? { maxTurns: team.maxTurns } : {}),
          });
          await stars.load();
          for (const member of team.members) {
            const agentId = member.id ?? `${name}-${member.agent}`;
            if (!cosmos.has(agentId))
              await cosmos.create({ via: 'stars' }, { agentId, templateId: member.agent });
            stars.join(agentId, member.role);
          }
          built.set(name, stars);
          await getStarsHooks.owned(kernel).teamCreated.promise({ stars });
        }
      });
      tapStarsRoutes(kernel, built);
    },
  };
}
