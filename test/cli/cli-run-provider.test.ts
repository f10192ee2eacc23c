import { afterEach, describe, expect, it } from 'vitest';
import { hubos, tempDir, writeFiles } from '../helpers/run.ts';
import { type FakeServer, sendEvent, sseHead, startServer } from '../plugins/models/server.ts';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function project(baseURL: string, apiKey: string): Promise<string> {
  const dir = await tempDir('hubos-run-openai-');
  await writeFiles(dir, {
    'agent.config.mjs': `export default {
  model: 'openai:gpt-4.1-mini',
  openai: { baseURL: '${baseURL}', apiKey: '${apiKey}', maxRetries: 0 },
  store: { driver: 'memory' },
  agents: { helper: { instructions: 'Be brief.' } },
};
`,
  });
  return dir;
}

describe('hubos run against an OpenAI-compatible server', () => {
  it('streams the model text as it arrives and names the model', async () => {
    server = await startServer((_request, res) => {
      sseHead(res);
      for (const word of ['Hello', ' from', ' the', ' server']) {
        sendEvent(res, {
          id: 'c1',
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: { content: word } }],
        });
      }
      sendEvent(res, { id: 'c1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      sendEvent(res, { id: 'c1', choices: [], usage: { prompt_tokens: 12, completion_tokens: 4 } });
      sendEvent(res, '[DONE]');
      res.end();
    });
    const dir = await project(`${server.url}/v1`, 'sk-test');
    const result = await hubos(['run', 'helper', 'hi'], dir);
    expect(result.stderr).toContain('agent "helper" · model openai:gpt-4.1-mini');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hello from the server\n');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[0]?.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('exits 1 with the provider message and status when the key is rejected', async () => {
    server = await startServer((_request, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: 'Incorrect API key provided: sk-bad.', type: 'invalid_request_error' },
        }),
      );
    });
    const dir = await project(`${server.url}/v1`, 'sk-bad');
    const result = await hubos(['run', 'helper', 'hi'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 401');
    expect(result.stderr).toContain('Incorrect API key provided: sk-bad.');
    expect(result.stderr).toContain('[MODEL_HTTP_ERROR]');
  });
});
