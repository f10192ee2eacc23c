import { ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type Served, serve } from './helpers.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('A2A discovery', () => {
  it('serves each agent card where the official client looks for it', async () => {
    served = await serve([]);
    const client = await new ClientFactory().createFromUrl(`${served.url}/a2a/helper/`);
    const card = await client.getAgentCard();
    expect(card).toMatchObject({
      name: 'helper',
      description: 'Answers questions about words.',
      version: '1.2.3',
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    });
    expect(card.supportedInterfaces).toEqual([
      { url: `${served.url}/a2a/helper`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${served.url}/a2a/helper`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.skills.map((skill) => [skill.id, skill.name, skill.tags])).toEqual([
      ['helper', 'helper', ['agent']],
      ['helper/lookup', 'lookup', ['tool', 'net:search']],
      ['helper/slow', 'slow', ['tool']],
    ]);
    expect(card.skills[0]?.description).toBe('Answers questions about words.');
    expect(card.securitySchemes ?? {}).toEqual({});
    expect(client.protocolVersion).toBe('1.0');
  });

  it('serves the default (first) agent card at the root, and the card of an agent without tools', async () => {
    served = await serve([]);
    const root = await fetch(`${served.url}/.well-known/agent-card.json`, {
      headers: { 'A2A-Version': '1.0' },
    });
    expect(root.status).toBe(200);
    expect(root.headers.get('vary')).toContain('A2A-Version');
    expect(await root.json()).toMatchObject({ name: 'helper' });
    const quiet = await (await new ClientFactory().createFromUrl(`${served.url}/a2a/quiet/`)).getAgentCard();
    expect(quiet.skills).toHaveLength(1);
    expect(quiet.description).toBe('The quiet agent, served by a2a-test.');
  });

  it('answers 404 AGENT_NOT_FOUND for an unknown agent', async () => {
    served = await serve([]);
    for (const response of [
      await fetch(`${served.url}/a2a/nobody/.well-known/agent-card.json`),
      await fetch(`${served.url}/a2a/nobody`, { method: 'POST', body: '{}' }),
    ]) {
      expect(response.status).toBe(404);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('AGENT_NOT_FOUND');
      expect(body.error.message).toContain('nobody');
    }
    await expect(new ClientFactory().createFromUrl(`${served.url}/a2a/nobody/`)).rejects.toThrow(/404/);
  });

  it('documents its routes in the OpenAPI document', async () => {
    served = await serve([]);
    const doc = (await (await fetch(`${served.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    expect(doc.paths['/a2a/{name}']?.post?.tags).toEqual(['a2a']);
    expect(doc.paths['/a2a/{name}/.well-known/agent-card.json']?.get).toBeDefined();
    expect(doc.paths['/.well-known/agent-card.json']?.get).toBeDefined();
  });
});
