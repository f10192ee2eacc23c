import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import {
  type ElicitRequest,
  executeTool,
  type JSONSchemaObject,
  sampleModel,
  type ToolCallEnv,
} from '../../../core/index.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { bootMcp, until } from './client-helpers.ts';

// The reference server of the MCP project, as a user would run it (`npx @modelcontextprotocol/server-everything`).
const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);
const server = { command: process.execPath, args: [EVERYTHING, 'stdio'], prefix: 'ev' };

/** What the server offers a client that declares every capability: the whole list to compare with. */
async function everyTool(): Promise<string[]> {
  const client = new Client(
    { name: 'reference', version: '1' },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} } },
  );
  await client.connect(new StdioClientTransport({ ...server, stderr: 'ignore' }));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

/** A human filling the form: defaults kept, the first choice picked, a plausible value typed. */
function fill(request: ElicitRequest): Record<string, unknown> {
  const answer: Record<string, unknown> = {};
  const properties = (request.schema.properties ?? {}) as Record<string, JSONSchemaObject>;
  for (const [name, field] of Object.entries(properties)) {
    if (field.default !== undefined) continue;
    const choices = (field.enum ?? (field.oneOf as { const: unknown }[] | undefined)?.map((o) => o.const)) as
      | unknown[]
      | undefined;
    if (choices) answer[name] = choices[0];
    else if (field.type === 'array')
      answer[name] = [((field.items as JSONSchemaObject).enum as unknown[])[0]];
    else if (field.type === 'boolean') answer[name] = true;
    else if (field.type === 'number' || field.type === 'integer') answer[name] = field.minimum ?? 1;
    else if (field.format === 'email') answer[name] = 'ann@example.com';
    else if (field.format === 'uri') answer[name] = 'https://example.com';
    else if (field.format === 'date') answer[name] = '2026-11-24';
    else answer[name] = 'Ann';
  }
  return answer;
}

const INPUTS: Record<string, unknown> = {
  echo: { message: 'hi' },
  'get-annotated-message': { messageType: 'success', includeImage: true },
  'get-structured-content': { location: 'Chicago' },
  'get-sum': { a: 2, b: 3 },
  'gzip-file-as-resource': { data: `data:text/plain;base64,${Buffer.from('hello').toString('base64')}` },
  'trigger-long-running-operation': { duration: 0.2, steps: 2 },
  'trigger-sampling-request': { prompt: 'Say hi', maxTokens: 20 },
  'simulate-research-query': { topic: 'tides' },
};

describe('HubOS as the client of the MCP reference server (server-everything)', () => {
  it('sees every tool the server offers a fully capable client, and calls each of them', async () => {
    const expected = await everyTool();
    expect(expected).toEqual(
      expect.arrayContaining(['get-roots-list', 'trigger-elicitation-request', 'trigger-sampling-request']),
    );
    const kernel = await bootMcp({ servers: { everything: server } });
    await until(() => kernel.registry.has('ev_echo'), 'the server to start');
    const seen = kernel.registry
      .list()
      .map((tool) => tool.name)
      .filter((name) => name.startsWith('ev_'));
    expect(seen.sort()).toEqual(expected.map((name) => `ev_${name}`).sort());

    const model = new ScriptedModel(Array.from({ length: 5 }, () => 'Hi from the model'));
    const asked: string[] = [];
    const env: ToolCallEnv = {
      signal: new AbortController().signal,
      agentId: 'tester',
      sandbox: kernel.sandbox,
      store: kernel.store,
      elicit: async (request) => {
        asked.push(request.message);
        return { action: 'accept', content: fill(request) };
      },
      sample: async (request, signal) => (await sampleModel(model, request, signal)).result,
    };
    const failures: string[] = [];
    const outputs = new Map<string, string>();
    for (const name of expected) {
      const result = await executeTool(kernel.registry, `ev_${name}`, INPUTS[name] ?? {}, env);
      if (!result.ok) failures.push(`${name}: ${result.error.message}`);
      else outputs.set(name, JSON.stringify(result));
    }
    expect(failures).toEqual([]);
    // Sampling was answered by the model, the question by the human, the roots are the workspace.
    expect(outputs.get('trigger-sampling-request')).toContain('Hi from the model');
    expect(asked.length).toBeGreaterThan(0);
    expect(outputs.get('get-roots-list')).toContain(new URL(`file://${kernel.sandbox.root}`).href);
    expect(outputs.get('get-tiny-image')).toContain('"type":"image"');
  }, 60_000);
});
