// What a stdio server's process gets of HubOS's environment, seen from a real child process: the
// CA and proxy variables always, a secret only when named, and a start that times out names what
// was held back and how to pass it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Kernel } from '../../../core/index.ts';
import { childEnv, NETWORK_ENV, withheldEnv } from '../../../plugins/mcp/client/child-env.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { bootMcp, fixtureServer } from './client-helpers.ts';

const statusOf = (kernel: Kernel, name: string) => kernel.service('mcp').clients.get(name)!;

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the environment of a stdio MCP server', () => {
  it('gets the CA and proxy variables without naming them, and no secret it does not name', async () => {
    vi.stubEnv('NODE_EXTRA_CA_CERTS', '/etc/ssl/corp-ca.pem');
    vi.stubEnv('HTTPS_PROXY', 'http://proxy.corp.test:3128');
    vi.stubEnv('no_proxy', 'localhost,.corp.test');
    vi.stubEnv('HUBOS_TEST_SECRET', 'do-not-leak');
    // The server hangs without the proxy, as one behind a corporate proxy does.
    const model = new ScriptedModel([{ toolCalls: [{ name: 'net_env' }] }, 'done']);
    const kernel = await bootMcp(
      { servers: { net: fixtureServer(['--silent-unless-env', 'HTTPS_PROXY']) } },
      { config: { agents: { dev: { model, tools: ['net_env'] } } } },
    );
    expect(statusOf(kernel, 'net').state).toBe('ready');
    const result = await kernel.agent('dev').run('go');
    const env = JSON.parse(result.toolCalls[0]!.output as string) as Record<string, string>;
    expect(env).toMatchObject({
      NODE_EXTRA_CA_CERTS: '/etc/ssl/corp-ca.pem',
      HTTPS_PROXY: 'http://proxy.corp.test:3128',
      no_proxy: 'localhost,.corp.test',
    });
    expect(env.HUBOS_TEST_SECRET).toBeUndefined();
  });

  it('names the variables it did not get, and how to pass them, when it does not finish starting', async () => {
    vi.stubEnv('HUBOS_TEST_TOKEN', 'secret-value');
    const kernel = await bootMcp({
      servers: {
        needy: fixtureServer(['--silent-unless-env', 'HUBOS_TEST_TOKEN'], { startTimeoutMs: 1_500 }),
      },
    });
    const { state, error } = statusOf(kernel, 'needy');
    expect(state).toBe('failed');
    expect(error).toMatch(/^it did not finish starting within 1\.5 s \(startTimeoutMs\)\. /);
    expect(error).toMatch(/not passed from HubOS's environment: [^.]*\bHUBOS_TEST_TOKEN\b/);
    expect(error).toContain(
      `env: ['NAME'] copies it from HubOS's environment, env: { NAME: 'value' } sets it`,
    );
    expect(error).not.toContain('secret-value');
    expect(error).not.toMatch(/environment: [^.]*\bHTTPS?_PROXY\b/);
  });

  it('starts once the variable is named in "env"', async () => {
    vi.stubEnv('HUBOS_TEST_TOKEN', 'secret-value');
    const kernel = await bootMcp({
      servers: {
        needy: fixtureServer(['--silent-unless-env', 'HUBOS_TEST_TOKEN'], { env: ['HUBOS_TEST_TOKEN'] }),
      },
    });
    expect(statusOf(kernel, 'needy').state).toBe('ready');
  });

  it('lets a value given in "env" win over a CA or proxy variable, and withholds the rest by name', () => {
    const from = { HTTPS_PROXY: 'http://a', http_proxy: 'http://b', SECRET: 's', PATH: '/bin' };
    expect(childEnv(undefined, from)).toEqual({ HTTPS_PROXY: 'http://a', http_proxy: 'http://b' });
    expect(childEnv({ HTTPS_PROXY: 'http://c' }, from)).toEqual({
      HTTPS_PROXY: 'http://c',
      http_proxy: 'http://b',
    });
    expect(withheldEnv(undefined, from)).toEqual(['SECRET']);
    expect(withheldEnv(['SECRET'], from)).toEqual([]);
    expect(NETWORK_ENV).toEqual(
      expect.arrayContaining(['SSL_CERT_FILE', 'SSL_CERT_DIR', 'https_proxy', 'NO_PROXY']),
    );
  });
});
