// A tool result too large for the model is kept whole, per principal: the model gets its head and a
// handle, finds what it needs with read_result, and no other principal can read it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readKept } from '../../core/context/kept-results.ts';
import { type Message, type ModelRequest, SqliteStore, type Tool } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../testing/index.ts';
import { toolsPlugin } from '../agent/helpers.ts';

const ALICE = 'a'.repeat(32);
const BOB = 'b'.repeat(32);
const ROOT = 'c'.repeat(32);
const MARKER = 'MARKER-7f3 the vault code is 4417';
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** About 2 MB of rows, the marker on a line near the end. */
function bigDump(): string {
  const rows: string[] = [];
  for (let i = 0; i < 30_000; i++) rows.push(`row ${i}: ${'x'.repeat(60)}`);
  rows.splice(29_900, 0, MARKER);
  return rows.join('\n');
}

const dump: Tool = {
  name: 'big_dump',
  description: 'Dumps a large table.',
  inputSchema: { type: 'object', properties: {} },
  handler: () => bigDump(),
};

const lastTool = (request: ModelRequest) =>
  request.messages.findLast((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool')!;
const toolNames = (request: ModelRequest) => request.tools.map((tool) => tool.name);
const handleIn = (text: string) => /"(result-[0-9a-f]{32})"/.exec(text)?.[1];

async function serve(script: ScriptStep[]) {
  const dir = mkdtempSync(join(tmpdir(), 'hubos-large-'));
  const model = new ScriptedModel(script);
  const kernel = await bootKernel({
    store: new SqliteStore(join(dir, 'hubos.db')),
    plugins: [toolsPlugin([dump])],
    config: { agents: { helper: { model, tools: ['big_dump'] } } },
  });
  const hubos = new HubOS({
    kernel,
    name: 'test',
    port: 0,
    rateLimit: false,
    apiKeys: [
      { key: ALICE, id: 'alice' },
      { key: BOB, id: 'bob' },
      { key: ROOT, id: 'root', admin: true },
    ],
  });
  hubos.registerAgent('helper', kernel.agent('helper'));
  await hubos.init();
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  closers.push(() => kernel.close());
  closers.push(() => hubos.close());
  const request = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await hubos.app.request(path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return { kernel, model, request };
}

describe('large tool results', () => {
  it('gives the model the head and a handle, and read_result finds a marker near the end of 2 MB', async () => {
    let handle: string | undefined;
    const { kernel, model, request } = await serve([
      { toolCalls: [{ name: 'big_dump' }] },
      (req) => {
        handle = handleIn(lastTool(req).content);
        return { toolCalls: [{ name: 'read_result', input: { handle, search: 'MARKER-7f3', context: 1 } }] };
      },
      (req) => ({ text: `Found: ${/> (MARKER-7f3[^\n]*)/.exec(lastTool(req).content)?.[1]}` }),
    ]);
    const run = await request('POST', '/api/agents/helper/run', ALICE, {
      input: 'find the code',
      sessionId: 's1',
    });
    expect(run.status).toBe(200);
    expect(run.body.text).toBe(`Found: ${MARKER}`);

    const [first, second, third] = model.requests;
    // The read tool is offered once a result was kept, not before.
    expect(toolNames(first!)).toEqual(['big_dump']);
    expect(toolNames(second!)).toEqual(['big_dump', 'read_result']);
    const cut = lastTool(second!).content;
    expect(handle).toBeDefined();
    expect(cut.length).toBeLessThan(9_000);
    expect(cut.startsWith('row 0: xxx')).toBe(true);
    expect(cut).not.toContain('MARKER');
    expect(cut).toContain(`Read more with the read_result tool`);
    expect(cut).toMatch(/it is \d{7} characters \(30001 lines/);
    const found = lastTool(third!).content;
    expect(found).toContain(`29901> ${MARKER}`);
    expect(found).toContain('29900  row 29899');
    expect(found).toContain('29902  row 29900');
    // The session keeps what the model was given, not the 2 MB.
    const session = await kernel.sessions.load('helper', 'alice~s1');
    const kept = session.find((m) => m.role === 'tool' && m.name === 'big_dump')!;
    expect(kept.content).toBe(cut);
  });

  it("refuses another principal's handle, and erasure removes the principal's kept results", async () => {
    let aliceHandle: string | undefined;
    let bobHandle: string | undefined;
    let bobRead: Extract<Message, { role: 'tool' }> | undefined;
    const { kernel, request } = await serve([
      { toolCalls: [{ name: 'big_dump' }] },
      (req) => {
        aliceHandle = handleIn(lastTool(req).content);
        return 'kept';
      },
      // Bob's run keeps a result of its own (so it has the read tool), then tries Alice's handle.
      { toolCalls: [{ name: 'big_dump' }] },
      (req) => {
        bobHandle = handleIn(lastTool(req).content);
        return { toolCalls: [{ name: 'read_result', input: { handle: aliceHandle, search: 'MARKER' } }] };
      },
      (req) => {
        bobRead = lastTool(req);
        return 'refused';
      },
    ]);
    expect(
      (await request('POST', '/api/agents/helper/run', ALICE, { input: 'dump', sessionId: 's1' })).status,
    ).toBe(200);
    expect(
      (await request('POST', '/api/agents/helper/run', BOB, { input: 'peek', sessionId: 's1' })).status,
    ).toBe(200);
    expect(aliceHandle).toMatch(/^result-[0-9a-f]{32}$/);
    expect(bobHandle).toMatch(/^result-[0-9a-f]{32}$/);
    expect(bobRead).toMatchObject({ isError: true });
    expect(bobRead!.content).toContain(`no kept result "${aliceHandle}" for this caller`);
    expect(bobRead!.content).not.toContain('vault');
    expect((await readKept(kernel.store, aliceHandle!, 'alice')).text).toContain(MARKER);

    const erased = await request('DELETE', '/api/owners/alice', ROOT);
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ owner: 'alice', keptResults: 1 });
    await expect(readKept(kernel.store, aliceHandle!, 'alice')).rejects.toThrow(/no kept result/);
    expect((await readKept(kernel.store, bobHandle!, 'bob')).text).toContain(MARKER);
  });
});
