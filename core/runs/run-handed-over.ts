import { HubosError } from '../errors.ts';

/**
 * Why a run stops on an instance that lost it to another (it looked dead, and the other took it
 * over): the other runs it on and says how it ends, so what this one left stored (a pending
 * approval, say) stays as it is rather than being cancelled on its way out.
 * @internal
 */
export class RunHandedOver extends HubosError {
  constructor(runId: string) {
    super('RUN_INTERRUPTED', `another instance took run ${runId} over`);
  }
}
