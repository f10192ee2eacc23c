import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';

/**
 * The end user a message's run is for, from its metadata (`metadata.userId`): memory is kept per
 * API key and user, as the REST body's `userId` and AG-UI's `forwardedProps.userId` say it.
 */
export function userIdOf(message: Message): string | undefined {
  const userId = message.metadata?.userId;
  if (userId === undefined) return undefined;
  if (typeof userId !== 'string' || userId.length < 1 || userId.length > 256)
    throw new RequestMalformedError(
      'metadata.userId must be a string of 1 to 256 characters: the end user of this key the message is for',
    );
  return userId;
}
