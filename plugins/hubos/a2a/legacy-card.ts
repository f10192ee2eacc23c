import { type AgentCard, AgentCard as AgentCardCodec } from '@a2a-js/sdk';
import { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { type A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';

/** The `A2A-Version` values a v0.3 card is served for: none (what v0.3 clients send) or 0.x with x >= 3. */
export function wantsLegacy(version: string | undefined): boolean {
  const requested = version?.trim() || '0.3';
  const match = /^0\.(\d+)/.exec(requested);
  return match !== null && Number(match[1]) >= 3;
}

/**
 * The card as v0.3 clients read it (`url`, `preferredTransport`, `protocolVersion`), with the v1.0
 * `supportedInterfaces` kept beside them so a v1.0 client that sent no version header still finds
 * them — what the SDK's own Express card handler serves. The SDK keeps its v1.0 -> v0.3 card
 * translator private; its v0.3 REST handler applies it to whatever card the request handler
 * returns, so we hand it ours.
 */
export async function legacyCard(card: AgentCard): Promise<Record<string, unknown>> {
  const cardSource = { getAuthenticatedExtendedAgentCard: async () => card } as Partial<A2ARequestHandler>;
  const translator = new LegacyRestTransportHandler(cardSource as A2ARequestHandler);
  const legacy = await translator.getAuthenticatedExtendedAgentCard(new ServerCallContext());
  const v1 = AgentCardCodec.toJSON(card) as { supportedInterfaces?: unknown };
  return { ...legacy, supportedInterfaces: v1.supportedInterfaces };
}
