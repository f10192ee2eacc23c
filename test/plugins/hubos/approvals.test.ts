import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defineTool, type Kernel, type Plugin, SqliteStore, type Store } from '../../../core/index.ts';
import { AguiTranslator } from '../../../plugins/hubos/agui/translate.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';
import { parseSSE, post } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

/** `write` needs fs:write, which the config asks about. */
const guardedTools: Plugin = {
  name: 'guarded-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('guarded-tools', (registry) => {
      registry.register(
        defineTool({
          name: 'write',
          description: 'Writes a note.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
          permissions: ['fs:write'],
          handler: (_ctx, { input }) => ({ wrote: input.text }),
        }),
      );
    });
  },
};

interface Server {
  kernel: Kernel;
  hubos: HubOS;
  url: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const { hubos, kernel } of servers.splice(0).reverse()) {
    await hubos.close();
    await kernel.close();
  }
});

const dir = mkdtempSync(join(tmpdir(), 'hubos-approval-routes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function serve(script: ScriptStep[], store?: Store): Promise<Server> {
  const kernel = await bootKernel({
    plugins: [guardedTools],
    ...(store ? { store } : {}),
    config: {
      permissions: { ask: ['fs:write'] },
      agents: { helper: { model: new ScriptedModel(script), tools: ['*'] } },
    },
  });
  const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false, shutdownTimeoutMs: 50 });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const server = { kernel, hubos, url: await hubos.serve() };
  servers.push(server);
  return server;
}

const writeCall = (id = 'c1'): ScriptStep => ({ toolCalls: [{ name: 'write', input: { text: 'hi' }, id }] });

async function startRun(url: string): Promise<string> {
  const response = await post(`${url}/api/agents/helper/run?async=true`, { input: 'go' });
  return ((await response.json()) as Json).runId;
}

/** Polls until `path` lists a pending approval. */
async function pending(url: string, path: string): Promise<Json[]> {
  for (let i = 0; i < 200; i++) {
    const body = (await (await fetch(`${url}${path}`)).json()) as Json;
    if (body.approvals?.length) return body.approvals;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`nothing pending at ${path}`);
}

const decide = (url: string, runId: string, callId: string, body: unknown) =>
  post(`${url}/api/runs/${runId}/approvals/${callId}`, body);

describe('HubOS approval routes', () => {
  it('lists a pending approval, approves it, and the run completes', async () => {
    const { url, hubos } = await serve([writeCall(), 'Done.']);
    const runId = await startRun(url);
    const [approval] = await pending(url, `/api/runs/${runId}/approvals`);
    expect(approval).toMatchObject({
      runId,
      agent: 'helper',
      step: 1,
      callId: 'c1',
      tool: 'write',
      input: { text: 'hi' },
      permissions: ['fs:write'],
      rule: 'fs:write',
      status: 'pending',
      live: true,
    });
    expect(Date.parse(approval.expiresAt)).toBeGreaterThan(Date.now());
    expect(((await (await fetch(`${url}/api/approvals`)).json()) as Json).approvals).toMatchObject([
      { runId, callId: 'c1' },
    ]);

    const approved = await decide(url, runId, 'c1', { approved: true });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ runId, callId: 'c1', status: 'approved', live: false });
    const record = await hubos.runs.wait(runId);
    expect(record).toMatchObject({ status: 'completed' });
    expect(record!.result!.toolCalls[0]).toMatchObject({ ok: true, output: { wrote: 'hi' } });

    expect(await (await fetch(`${url}/api/runs/${runId}/approvals`)).json()).toEqual({
      runId,
      approvals: [],
    });
    const all = (await (await fetch(`${url}/api/runs/${runId}/approvals?all=true`)).json()) as Json;
    expect(all.approvals).toMatchObject([{ callId: 'c1', status: 'approved' }]);

    const again = await decide(url, runId, 'c1', { approved: false });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: { code: 'APPROVAL_DECIDED', message: `approval "c1" of run "${runId}" is already approved` },
      approval: { status: 'approved' },
    });
  });

  it('answers 400 for a bad body, 404 for an unknown run or call, and denies with a reason', async () => {
    const { url, hubos } = await serve([writeCall(), 'Fine.']);
    expect((await fetch(`${url}/api/runs/nope/approvals`)).status).toBe(404);
    const unknownRun = await decide(url, 'nope', 'c1', { approved: true });
    expect(unknownRun.status).toBe(404);
    expect(((await unknownRun.json()) as Json).error.code).toBe('RUN_NOT_FOUND');

    const runId = await startRun(url);
    await pending(url, `/api/runs/${runId}/approvals`);
    const unknownCall = await decide(url, runId, 'other', { approved: true });
    expect(unknownCall.status).toBe(404);
    expect(((await unknownCall.json()) as Json).error).toEqual({
      code: 'APPROVAL_NOT_FOUND',
      message: `run "${runId}" has no approval request "other"`,
    });
    for (const body of [
      {},
      { approved: 'yes' },
      { approved: true, extra: 1 },
      { approved: false, reason: 5 },
    ]) {
      const bad = await decide(url, runId, 'c1', body);
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as Json).error.code).toBe('INVALID_BODY');
    }
    const notJson = await decide(url, runId, 'c1', '{approved');
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as Json).error.code).toBe('INVALID_JSON');

    const denied = await decide(url, runId, 'c1', { approved: false, reason: 'not now' });
    expect(await denied.json()).toMatchObject({ status: 'denied', reason: 'not now' });
    const record = await hubos.runs.wait(runId);
    expect(record!.result!.toolCalls[0]!.error).toEqual({
      code: 'TOOL_DENIED',
      message: 'denied by the user: not now',
    });
    // The run is known (its record is stored), so it answers an empty list rather than 404.
    expect((await fetch(`${url}/api/runs/${runId}/approvals`)).status).toBe(200);
  });

  it('streams approval events over SSE while the run waits for the decision', async () => {
    const { url } = await serve([writeCall(), 'Done.']);
    const streaming = post(`${url}/api/agents/helper/run`, { input: 'go' }, { accept: 'text/event-stream' });
    const [approval] = await pending(url, '/api/approvals');
    expect((await decide(url, approval.runId, approval.callId, { approved: true })).status).toBe(200);
    const events = parseSSE(await (await streaming).text());
    const types = events.map((event) => event.event);
    expect(types).toContain('approval-request');
    expect(types.indexOf('approval-result')).toBeLessThan(types.indexOf('tool-result'));
    expect(events.find((event) => event.event === 'approval-request')!.data).toMatchObject({
      runId: approval.runId,
      callId: 'c1',
      tool: 'write',
    });
    expect(events.at(-1)).toMatchObject({ event: 'run-finish', data: { result: { status: 'completed' } } });
  });

  it('through another process on the same file, lists a pending approval and decides it for the run', async () => {
    const path = join(dir, 'restart.db');
    const before = await serve([writeCall(), 'applied elsewhere'], new SqliteStore(path));
    const runId = await startRun(before.url);
    await pending(before.url, `/api/runs/${runId}/approvals`);

    // A second kernel and server on the same file, with no bus between them: the run is the first's.
    const after = await serve([], new SqliteStore(path));
    const [listed] = await pending(after.url, `/api/runs/${runId}/approvals`);
    expect(listed).toMatchObject({ runId, callId: 'c1', status: 'pending', live: false });

    // The runs table says the run still runs (its instance is alive): the decision is recorded for
    // it, and the process running it applies it from the store.
    const late = await decide(after.url, runId, 'c1', { approved: true, reason: 'ok later' });
    expect(late.status).toBe(200);
    expect(await late.json()).toMatchObject({ status: 'approved', reason: 'ok later' });
    const all = (await (await fetch(`${after.url}/api/runs/${runId}/approvals?all=true`)).json()) as Json;
    expect(all.approvals).toMatchObject([{ callId: 'c1', status: 'approved' }]);
    expect((await decide(after.url, runId, 'c1', { approved: false })).status).toBe(409);
    let run: Json = {};
    for (let i = 0; i < 200 && run.status !== 'completed'; i++) {
      run = (await (await fetch(`${after.url}/api/runs/${runId}`)).json()) as Json;
      if (run.status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(run).toMatchObject({ status: 'completed', result: { text: 'applied elsewhere' } });
  });

  it('documents the routes in the OpenAPI document', async () => {
    const { url } = await serve([]);
    const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as Json;
    expect(Object.keys(doc.paths['/api/runs/{id}/approvals'])).toEqual(['get']);
    const decideDoc = doc.paths['/api/runs/{id}/approvals/{callId}'].post;
    expect(Object.keys(decideDoc.responses).sort()).toEqual(['200', '400', '404', '409']);
    expect(decideDoc.requestBody.content['application/json'].schema.required).toEqual(['approved']);
    expect(doc.paths['/api/approvals'].get).toBeDefined();
  });

  it('reaches AG-UI clients as CUSTOM events', () => {
    const event = {
      type: 'approval-request' as const,
      runId: 'r1',
      step: 1,
      callId: 'c1',
      tool: 'write',
      input: {},
      permissions: ['fs:write'],
      expiresAt: new Date().toISOString(),
    };
    expect(new AguiTranslator('thread', 'r1').translate(event)).toEqual([
      { type: 'CUSTOM', name: 'hubos.approval-request', value: event },
    ]);
  });
});
