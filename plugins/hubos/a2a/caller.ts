import type { ServerCallContext, User } from '@a2a-js/sdk/server';
import { ANONYMOUS, type Principal } from '../../../core/index.ts';

/** The A2A SDK's view of a HubOS caller: its `userName` is the principal id tasks are owned by. */
export class PrincipalUser implements User {
  readonly principal: Principal;

  constructor(principal: Principal) {
    this.principal = principal;
  }

  get isAuthenticated(): boolean {
    return this.principal.kind !== 'anonymous';
  }

  get userName(): string {
    return this.principal.id;
  }
}

/** The caller of an A2A call; a context HubOS did not build is nobody's (it can see no task). */
export function callerOf(context: ServerCallContext | undefined): Principal {
  const user = context?.user;
  return user instanceof PrincipalUser ? user.principal : ANONYMOUS;
}
