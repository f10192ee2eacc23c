import { createHash } from 'node:crypto';
import { sessionOwner } from '../principal.ts';

/** Whose memory a run reads and writes: its principal's, its end user's, with one agent. */
export interface MemoryScope {
  owner: string;
  /** '' when the run named no user. */
  userId: string;
  agent: string;
}

/**
 * A run's memory scope. The owner is its principal, else whose its session is told to be (as the
 * sessions tables file it), else the keyless caller `local`: so recall reads exactly the sessions
 * that were filed under the same owner.
 */
export function memoryScope(run: {
  principal?: string | undefined;
  userId?: string | undefined;
  agent: string;
  sessionId?: string | undefined;
}): MemoryScope {
  const owner = run.principal ?? (run.sessionId !== undefined ? sessionOwner(run.sessionId) : 'local');
  return { owner, userId: run.userId ?? '', agent: run.agent };
}

/** A fixed-length key for a scope (record keys are at most 512 bytes; ids may be long). */
export function scopeKey(scope: MemoryScope): string {
  return createHash('sha256')
    .update(JSON.stringify([scope.owner, scope.userId, scope.agent]))
    .digest('base64url');
}
