import { defineErrorCodes, HubosError } from '../../core/index.ts';

/** Seconds a client told `COSMOS_FULL` should wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

/** Cosmos's own error codes and their HTTP statuses. */
export const COSMOS_ERROR_CODES = defineErrorCodes('cosmos', {
  COSMOS_FULL: { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
  TEMPLATE_NOT_FOUND: 404,
  /** Over HTTP, a key without `admin` asked for more than the template gives (tools, model, metadata). */
  COSMOS_OVERRIDE_DENIED: 403,
  /** Over HTTP, a key without `admin` asked for what only admin keys may do (stats, deleting a shared agent). */
  COSMOS_ADMIN_ONLY: 403,
});

/** `AGENT_EXISTS`: the id is taken, here or (in the store) on another instance. */
export function agentExists(agentId: string): HubosError {
  return new HubosError('AGENT_EXISTS', `an agent named "${agentId}" already exists`, {
    details: { agent: agentId },
  });
}

/** `COSMOS_FULL`: `maxAgents` agents exist (held here, or stored by the instances sharing the store). */
export function cosmosFull(maxAgents: number): HubosError {
  return COSMOS_ERROR_CODES.create(
    'COSMOS_FULL',
    `cosmos is full: it holds at most ${maxAgents} agents (maxAgents); delete one first`,
    { details: { maxAgents } },
  );
}
