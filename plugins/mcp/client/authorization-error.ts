/** Why signing in to a server did not work; `retry`: whether trying again later may help. */
export class AuthorizationError extends Error {
  readonly retry: boolean;

  constructor(message: string, retry: boolean) {
    super(message);
    this.name = 'AuthorizationError';
    this.retry = retry;
  }
}
