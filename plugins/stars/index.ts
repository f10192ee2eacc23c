import { HubosError, KERNEL_OF, type KernelView, type Plugin } from '../../core/index.ts';
import { getCosmos } from '../cosmos/index.ts';
import { getHubOSHooks } from '../hubos/hooks.ts';
import { getStarsHooks } from './hooks.ts';
import { Stars } from './stars.ts';
import { STARS_CONFIG_SCHEMA, type StarsConfig } from './types.ts';

export { getStarsHooks, type StarsHooks } from './hooks.ts';
export {
  DEFAULT_HISTORY_LIMIT,
  DEFAULT_MAX_TURNS,
  STARS_NAMESPACE,
  Stars,
  type StarsErrorCode,
  starsError,
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

declare module '../../core/config.js' {
  interface HubosConfig {
    /** Stars teams by name: members (template + role) and limits. */
    stars?: StarsConfig;
  }
}

const teams = new WeakMap<object, Map<string, Stars>>();

/** The teams the plugin built for this kernel (after boot), by name. */
export function getStars(kernel: { readonly [KERNEL_OF]: object }): Map<string, Stars> {
  const found = teams.get(kernel[KERNEL_OF]);
  if (!found)
    throw new HubosError('KERNEL_STATE', 'no Stars on this kernel: add the stars plugin and boot the kernel');
  return found;
}

/**
 * The `stars` plugin (needs `cosmos`): owns the `stars` config key (the options win over it) and,
 * once the kernel is ready, builds each team, creating its member agents in Cosmos from their
 * templates; HubOS serves every team under `/api/stars`.
 */
export default function stars(options: StarsConfig = {}): Plugin {
  return {
    name: 'stars',
    dependencies: ['cosmos'],
    configSchema: { stars: STARS_CONFIG_SCHEMA },
    apply(kernel: KernelView) {
      const key = kernel[KERNEL_OF];
      const built = new Map<string, Stars>();
      teams.set(key, built);
      kernel.hooks.ready.tapPromise('stars', async ({ config }) => {
        const cosmos = getCosmos(kernel);
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
          await getStarsHooks(kernel).teamCreated.promise({ stars });
        }
      });
      getHubOSHooks(kernel).routes.tap('stars', ({ hubos }) => {
        for (const [name, team] of built) if (!hubos.stars.has(name)) hubos.registerStars(name, team);
      });
    },
  };
}
