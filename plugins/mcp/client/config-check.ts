import { createPrivateKey, type KeyObject } from 'node:crypto';
import { AllowList, errorMessage, HubosError } from '../../../core/index.ts';
import type { McpClientAuthConfig, McpServerConfig } from '../config.ts';
import { isHttp } from './transport-kind.ts';

/**
 * What the config's schema cannot say about one server: its `allowHosts` ranges must be valid,
 * its OAuth options must make one way of signing in, and a private key must be one. Throws CONFIG_INVALID naming the key and the fix.
 */
export function checkServerConfig(name: string, config: McpServerConfig): void {
  if (!isHttp(config)) return;
  // A malformed range is refused at boot, not at the first connection.
  new AllowList(config.allowHosts, `mcp.servers.${name}.allowHosts`);
  if (!config.auth) return;
  const at = `mcp.servers.${name}.auth`;
  const auth = config.auth;
  const fail = (problem: string) => {
    throw new HubosError('CONFIG_INVALID', `${at}: ${problem}`, { details: { server: name } });
  };
  const authorization = Object.keys(config.headers ?? {}).find(
    (header) => header.toLowerCase() === 'authorization',
  );
  if (authorization)
    fail(
      `the server gets an "${authorization}" header from "headers" already: sign in with one or the other (remove the header, or set auth: false)`,
    );
  if (auth.clientSecret !== undefined && auth.clientId === undefined)
    fail('"clientSecret" needs the "clientId" it belongs to');
  if (auth.grant === 'client_credentials') {
    if (auth.clientId === undefined)
      fail(
        'grant "client_credentials" signs in as a registered client: set "clientId" (and "clientSecret" or "privateKey")',
      );
    if ((auth.clientSecret === undefined) === (auth.privateKey === undefined))
      fail('grant "client_credentials" signs in with "clientSecret" or with "privateKey": set exactly one');
    if (auth.redirectPort !== undefined || auth.clientMetadataUrl !== undefined)
      fail('"redirectPort" and "clientMetadataUrl" serve the "authorization_code" grant only: remove them');
  } else if (auth.privateKey !== undefined) {
    fail('"privateKey" signs in with grant "client_credentials": set grant: "client_credentials"');
  }
  if (auth.privateKey !== undefined) signingAlgorithm(auth, at);
}

/**
 * The JWS algorithm to sign with: the configured one, or the one the key's type implies. Throws
 * CONFIG_INVALID when the key is not a PEM private key.
 */
export function signingAlgorithm(auth: McpClientAuthConfig, at = 'auth'): string {
  let key: KeyObject;
  try {
    key = createPrivateKey(auth.privateKey ?? '');
  } catch (error) {
    // The key's text never goes into the message.
    throw new HubosError(
      'CONFIG_INVALID',
      `${at}.privateKey is not a PEM private key (${errorMessage(error).split('\n')[0]}): give the PKCS#8 text, "-----BEGIN PRIVATE KEY-----" ...`,
    );
  }
  if (auth.algorithm) return auth.algorithm;
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return 'RS256';
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
  }
  throw new HubosError(
    'CONFIG_INVALID',
    `${at}.privateKey is a ${type ?? 'unknown'} key HubOS cannot pick an algorithm for: set "algorithm" (RS256, ES256, ...)`,
  );
}
