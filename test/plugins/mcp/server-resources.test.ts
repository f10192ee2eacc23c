import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Served, serveMcp } from './server-helpers.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef01';

let served: Served | undefined;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await served?.close();
  served = undefined;
});

async function setup(...args: Parameters<typeof serveMcp>) {
  served = await serveMcp(...args);
  return served;
}

async function client(url: string, options: Parameters<typeof connect>[1] = {}) {
  const connected = await connect(url, options);
  cleanups.push(() => connected.client.close());
  return connected.client;
}

/** The text of a read's first contents. */
const textOf = (result: { contents: unknown[] }) => (result.contents[0] as { text?: string }).text;

describe('resources over MCP', () => {
  it('lists resources (static, and those templates list: workspace files, ...) and templates, and reads them', async () => {
    const { url, kernel, workspace } = await setup();
    mkdirSync(join(workspace, 'notes'));
    writeFileSync(join(workspace, 'notes/todo.md'), '# To do\n');
    writeFileSync(join(workspace, 'dot.png'), PNG);
    mkdirSync(join(workspace, '.hidden'));
    writeFileSync(join(workspace, '.hidden/secret.txt'), 'hidden');
    kernel.resources.register({
      uri: 'docs://readme',
      name: 'readme',
      description: 'The readme',
      mimeType: 'text/plain',
      permissions: ['docs:read'],
      read: () => [{ uri: 'docs://readme', mimeType: 'text/plain', text: 'Read me.' }],
    });
    kernel.resources.registerTemplate({
      uriTemplate: 'items://{id}',
      name: 'item',
      list: () => [{ uri: 'items://7', name: 'Item 7' }],
      read: (uri, { id }) => [{ uri, text: `item ${id}` }],
    });
    const mcp = await client(url);
    expect(mcp.getServerCapabilities()).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      completions: {},
      logging: {},
    });

    const { resources } = await mcp.listResources();
    expect(resources).toEqual([
      { uri: 'docs://readme', name: 'readme', description: 'The readme', mimeType: 'text/plain' },
      { uri: 'file:///dot.png', name: 'dot.png', mimeType: 'image/png' },
      { uri: 'file:///notes/todo.md', name: 'notes/todo.md', mimeType: 'text/markdown' },
      { uri: 'items://7', name: 'Item 7' },
    ]);
    const { resourceTemplates } = await mcp.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'file:///{+path}',
      'hubos://sessions/{agent}/{session}',
      'items://{id}',
    ]);

    expect(await mcp.readResource({ uri: 'docs://readme' })).toEqual({
      contents: [{ uri: 'docs://readme', mimeType: 'text/plain', text: 'Read me.' }],
    });
    expect(await mcp.readResource({ uri: 'file:///notes/todo.md' })).toEqual({
      contents: [{ uri: 'file:///notes/todo.md', mimeType: 'text/markdown', text: '# To do\n' }],
    });
    expect(await mcp.readResource({ uri: 'file:///dot.png' })).toEqual({
      contents: [{ uri: 'file:///dot.png', mimeType: 'image/png', blob: PNG.toString('base64') }],
    });
    expect(textOf(await mcp.readResource({ uri: 'items://42' }))).toBe('item 42');
    // Hidden files are not listed, but the workspace's files can be read by their URI.
    expect(textOf(await mcp.readResource({ uri: 'file:///.hidden/secret.txt' }))).toBe('hidden');

    await expect(mcp.readResource({ uri: 'file:///nope.txt' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining('no file "nope.txt" in the workspace'),
    });
    await expect(mcp.readResource({ uri: 'nothing://here' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining('no resource "nothing://here" is served here'),
    });
  });

  it('never reads outside the workspace: `..`, absolute paths, symbolic links and hard links are refused', async () => {
    const { url, workspace } = await setup();
    const outside = mkdtempSync(join(tmpdir(), 'hubos-mcp-outside-'));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'link.txt'));
    symlinkSync(outside, join(workspace, 'linked-folder'));
    linkSync(join(outside, 'secret.txt'), join(workspace, 'hard.txt'));
    writeFileSync(join(workspace, 'fine.txt'), 'fine');
    const mcp = await client(url);

    const secretName = join(outside, 'secret.txt').slice(1);
    const refusals: [string, string][] = [
      [`file:///../${outside.split('/').pop()}/secret.txt`, 'outside the workspace (..)'],
      ['file:///%2e%2e/%2e%2e/etc/passwd', 'outside the workspace (..)'],
      [`file:////${secretName}`, 'paths are relative to the workspace'],
      ['file:///link.txt', 'a symbolic link points out of it'],
      ['file:///linked-folder/secret.txt', 'a symbolic link points out of it'],
      ['file:///hard.txt', 'has other hard links'],
    ];
    for (const [uri, why] of refusals) {
      const read = mcp.readResource({ uri });
      await expect(read, uri).rejects.toThrow(why);
      await read.catch((error: Error) => expect(error.message).not.toContain('TOP SECRET'));
    }
    expect(textOf(await mcp.readResource({ uri: 'file:///fine.txt' }))).toBe('fine');

    const listed = (await mcp.listResources()).resources.map((resource) => resource.uri);
    expect(listed).toContain('file:///fine.txt');
    expect(listed.filter((uri) => uri.startsWith('file:'))).toEqual(['file:///fine.txt', 'file:///hard.txt']);
    const complete = async (value: string) =>
      (
        await mcp.complete({
          ref: { type: 'ref/resource', uri: 'file:///{+path}' },
          argument: { name: 'path', value },
        })
      ).completion.values;
    expect(await complete('f')).toEqual(['fine.txt']);
    expect(await complete('linked-folder/')).toEqual([]);
    expect(await complete('../')).toEqual([]);
  });

  it('decides reads by the permission policy: deny refuses, ask asks the user when the client can', async () => {
    // The test server's policy denies fs:delete and asks about fs:write; these resources need them.
    const { url, kernel } = await setup();
    kernel.resources.register({
      uri: 'vault://secret',
      name: 'secret',
      permissions: ['fs:delete'],
      read: () => [{ uri: 'vault://secret', text: 'the secret' }],
    });
    kernel.resources.registerTemplate({
      uriTemplate: 'drafts://{name}',
      name: 'draft',
      permissions: ['fs:write'],
      read: (uri, { name }) => [{ uri, text: `draft ${name}` }],
      complete: { name: () => ['one', 'two'] },
    });
    kernel.resources.registerTemplate({
      uriTemplate: 'sealed://{name}',
      name: 'sealed',
      permissions: ['fs:delete'],
      read: (uri) => [{ uri, text: 'sealed' }],
      list: () => [{ uri: 'sealed://listed-name', name: 'listed-name' }],
      complete: { name: () => ['hidden-name'] },
    });
    const plain = await client(url);
    // Neither the denied resource nor a denied template's entries are listed.
    const uris = (await plain.listResources()).resources.map((resource) => resource.uri);
    expect(uris).not.toContain('vault://secret');
    expect(uris).not.toContain('sealed://listed-name');
    // A URI longer than any resource's is refused before it is matched or kept.
    await expect(plain.subscribeResource({ uri: `file:///${'a'.repeat(10_000)}` })).rejects.toThrow(
      'over the 8192 this server takes',
    );
    await expect(plain.readResource({ uri: 'vault://secret' })).rejects.toThrow(
      `the permission policy denies reading "vault://secret": fs:delete (rule deny 'fs:delete')`,
    );
    await expect(plain.subscribeResource({ uri: 'vault://secret' })).rejects.toThrow('cannot be watched');
    await expect(plain.readResource({ uri: 'drafts://one' })).rejects.toThrow(
      `reading "drafts://one" needs approval (fs:write (rule ask 'fs:write')), and this MCP client cannot ask you for it`,
    );
    const sealed = await plain.complete({
      ref: { type: 'ref/resource', uri: 'sealed://{name}' },
      argument: { name: 'name', value: '' },
    });
    expect(sealed.completion.values).toEqual([]);
    const drafts = await plain.complete({
      ref: { type: 'ref/resource', uri: 'drafts://{name}' },
      argument: { name: 'name', value: '' },
    });
    // Under `ask` the values would tell what it holds before anyone approved: nothing either.
    expect(drafts.completion).toEqual({ values: [], total: 0, hasMore: false });
    kernel.resources.registerTemplate({
      uriTemplate: 'open://{name}',
      name: 'open',
      read: (uri) => [{ uri, text: 'open' }],
      complete: { name: () => ['one', 'two'] },
    });
    const open = await plain.complete({
      ref: { type: 'ref/resource', uri: 'open://{name}' },
      argument: { name: 'name', value: '' },
    });
    expect(open.completion).toEqual({ values: ['one', 'two'], total: 2, hasMore: false });

    const asked: string[] = [];
    let approve = true;
    const asking = await client(url, {
      answer: (message) => {
        asked.push(message);
        return approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
      },
    });
    expect(textOf(await asking.readResource({ uri: 'drafts://one' }))).toBe('draft one');
    expect(asked).toEqual([
      `Allow reading the resource "drafts://one"? It needs fs:write (rule ask 'fs:write').`,
    ]);
    approve = false;
    await expect(asking.readResource({ uri: 'drafts://two' })).rejects.toThrow(
      '"drafts://two" was not read: the user denied the call',
    );
  });

  it("offers the caller's own stored sessions, never another API key's", async () => {
    const { url } = await setup({
      script: ['Hello, Alice.'],
      server: {
        apiKeys: [
          { key: ALICE, id: 'alice' },
          { key: BOB, id: 'bob' },
        ],
      },
    });
    const alice = await client(url, { headers: { authorization: `Bearer ${ALICE}` } });
    const bob = await client(url, { headers: { authorization: `Bearer ${BOB}` } });
    await alice.callTool({
      name: 'ask_helper',
      arguments: { message: 'Hi, I am Alice.', sessionId: 'chat1' },
    });

    const sessionsOf = async (mcp: typeof alice) =>
      (await mcp.listResources()).resources.filter((resource) =>
        resource.uri.startsWith('hubos://sessions/'),
      );
    expect(await sessionsOf(alice)).toEqual([
      { uri: 'hubos://sessions/helper/chat1', name: 'helper/chat1', mimeType: 'application/json' },
    ]);
    const read = await alice.readResource({ uri: 'hubos://sessions/helper/chat1' });
    expect(JSON.parse(textOf(read)!)).toEqual([
      { role: 'user', content: 'Hi, I am Alice.' },
      { role: 'assistant', content: 'Hello, Alice.' },
    ]);

    expect(await sessionsOf(bob)).toEqual([]);
    await expect(bob.readResource({ uri: 'hubos://sessions/helper/chat1' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining('you have no stored session "chat1"'),
    });
    // Naming Alice's stored key outright gets nowhere either.
    await expect(bob.readResource({ uri: 'hubos://sessions/helper/alice~chat1' })).rejects.toMatchObject({
      code: -32002,
    });
    // Completion names only the agents the caller has sessions with.
    const agentsFor = async (mcp: typeof alice) =>
      (
        await mcp.complete({
          ref: { type: 'ref/resource', uri: 'hubos://sessions/{agent}/{session}' },
          argument: { name: 'agent', value: 'he' },
        })
      ).completion.values;
    expect(await agentsFor(alice)).toEqual(['helper']);
    expect(await agentsFor(bob)).toEqual([]);
  });

  it('tells subscribers when a resource changes (until they unsubscribe), and when the list changes', async () => {
    const { url, kernel } = await setup();
    for (const name of ['live', 'other'])
      kernel.resources.register({
        uri: `docs://${name}`,
        name,
        read: () => [{ uri: `docs://${name}`, text: name }],
      });
    const mcp = await client(url);
    const updated: string[] = [];
    let heard: (uri: string) => void = () => undefined;
    mcp.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
      heard(notification.params.uri);
    });
    const hear = (uri: string) =>
      new Promise<void>((resolve) => {
        heard = (got) => got === uri && resolve();
      });
    await mcp.subscribeResource({ uri: 'docs://live' });
    await mcp.subscribeResource({ uri: 'docs://other' });
    await expect(mcp.subscribeResource({ uri: 'docs://missing' })).rejects.toMatchObject({ code: -32002 });

    // The client opens its event stream in the background: say it changed until it hears.
    const live = hear('docs://live');
    for (;;) {
      kernel.resources.updated('docs://live');
      const timer = new Promise((resolve) => setTimeout(() => resolve('again'), 200));
      if ((await Promise.race([live.then(() => 'done'), timer])) === 'done') break;
    }

    await mcp.unsubscribeResource({ uri: 'docs://live' });
    updated.length = 0;
    const other = hear('docs://other');
    kernel.resources.updated('docs://live');
    kernel.resources.updated('docs://unwatched');
    kernel.resources.updated('docs://other');
    await other;
    // In order on one stream: had the unwatched ones been sent, they would have come first.
    expect(updated).toEqual(['docs://other']);

    const listChanged = new Promise<void>((resolve) => {
      mcp.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve());
    });
    kernel.resources.register({
      uri: 'docs://new',
      name: 'new',
      read: () => [{ uri: 'docs://new', text: 'new' }],
    });
    await listChanged;
    expect((await mcp.listResources()).resources.map((resource) => resource.uri)).toContain('docs://new');
  });

  it('serves only what serve.resources selects, and declares no resources when none are served', async () => {
    const { url, kernel } = await setup({ mcp: { serve: { resources: ['docs://*'] } } });
    kernel.resources.register({ uri: 'docs://a', name: 'a', read: () => [{ uri: 'docs://a', text: 'a' }] });
    kernel.resources.register({ uri: 'other://b', name: 'b', read: () => [{ uri: 'other://b', text: 'b' }] });
    const mcp = await client(url);
    expect((await mcp.listResources()).resources.map((resource) => resource.uri)).toEqual(['docs://a']);
    expect((await mcp.listResourceTemplates()).resourceTemplates).toEqual([]);
    await expect(mcp.readResource({ uri: 'other://b' })).rejects.toMatchObject({ code: -32002 });
    await expect(mcp.readResource({ uri: 'file:///anything.txt' })).rejects.toMatchObject({ code: -32002 });
    await served!.close();

    const { url: bare } = await setup({ mcp: { serve: { resources: false, prompts: false } } });
    const none = await client(bare);
    expect(none.getServerCapabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
    await expect(none.listResources()).rejects.toThrow();
  });
});
