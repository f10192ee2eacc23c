import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { Agent } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';

/** Text in, text out: HubOS agents answer with text (tool calls ride along as data parts). */
const MODES = ['text/plain'];

/** The path of an agent's A2A endpoint; its card sits below it at `.well-known/agent-card.json`. */
export function a2aPath(name: string): string {
  return `/a2a/${encodeURIComponent(name)}`;
}

/**
 * The v1.0 agent card of one served agent. `base` is the server's base URL (`server.publicUrl`, else
 * the one it listens on), never the request's Host header: a card is public, and a Host it reflected
 * would let anyone point clients elsewhere. The JSON-RPC interface is listed for v1.0 and mirrored for v0.3 clients.
 */
export function buildAgentCard(hubos: HubOS, name: string, agent: Agent, base: string): AgentCard {
  const url = `${base}${a2aPath(name)}`;
  const auth = hubos.authRequired;
  return {
    name,
    description: agent.spec.description || `The ${name} agent, served by ${hubos.name}.`,
    supportedInterfaces: duplicateInterfacesForLegacy(
      [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
      ['JSONRPC'],
    ),
    provider: { organization: hubos.name, url: base },
    version: hubos.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: auth
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { scheme: 'Bearer', description: 'A HubOS API key.', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: auth ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: skillsOf(name, agent),
    signatures: [],
  };
}

/** One skill for the agent as a whole, then one per tool: what a caller can expect it to do. */
function skillsOf(name: string, agent: Agent): AgentSkill[] {
  const skill = (id: string, skillName: string, description: string, tags: string[]): AgentSkill => ({
    id,
    name: skillName,
    description,
    tags,
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  });
  return [
    skill(name, name, agent.spec.description || `Chat with the ${name} agent.`, ['agent']),
    ...agent.tools.map((tool) =>
      skill(`${name}/${tool.name}`, tool.name, tool.description, ['tool', ...(tool.permissions ?? [])]),
    ),
  ];
}
