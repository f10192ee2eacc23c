import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../core/index.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { alive, bootMcp, fixtureServer, pidsWithArg, recordingLogger, until } from './client-helpers.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const statusOf = (kernel: Kernel, name: string) => kernel.service('mcp').clients.get(name)!;

describe('mcp client: servers that fail', () => {
  it('restarts a server that crashed; meanwhile its tools say it is not connected', async () => {
    const logger = recordingLogger();
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'fx_pid' }] },
      { toolCalls: [{ name: 'fx_crash' }] },
      'crashed',
      { toolCalls: [{ name: 'fx_echo', input: { text: 'while down' } }] },
      'down',
      { toolCalls: [{ name: 'fx_pid' }, { name: 'fx_echo', input: { text: 'back' } }] },
      'back',
    ]);
    const kernel = await bootMcp(
      { servers: { fx: fixtureServer() }, restart: { initialDelayMs: 1_500, maxDelayMs: 3_000 } },
      { logger, config: { agents: { dev: { model, tools: ['fx_*'] } } } },
    );
    const agent = kernel.agent('dev');
    const first = await agent.run('crash it');
    const pid = Number(first.toolCalls[0]!.output);
    expect(first.toolCalls[1]).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
    await until(() => statusOf(kernel, 'fx').state === 'failed', 'the crash to be noticed');
    expect(statusOf(kernel, 'fx')).toMatchObject({ error: 'the process exited', attempts: 1 });
    expect(statusOf(kernel, 'fx').nextRetryAt).toBeDefined();
    // The tools stay registered while it is down, and say why they cannot run.
    expect(agent.tools.map((tool) => tool.name)).toContain('fx_echo');
    const down = await agent.run('call it');
    expect(down.toolCalls[0]!.error!.message).toMatch(
      /MCP server "fx" is not connected: the process exited; retrying in/,
    );
    await until(() => statusOf(kernel, 'fx').state === 'ready', 'the restart');
    expect(statusOf(kernel, 'fx').attempts).toBe(0);
    const back = await agent.run('again');
    expect(Number(back.toolCalls[0]!.output)).not.toBe(pid);
    expect(back.toolCalls[1]).toMatchObject({ ok: true, output: 'back' });
    expect(logger.warnings().join('\n')).toContain('MCP server "fx" stopped: the process exited (attempt 1)');
    expect(logger.warnings().join('\n')).toContain('stderr: crashing on purpose');
  });

  it('boots despite a command that does not exist, reports it and retries', async () => {
    const logger = recordingLogger();
    const model = new ScriptedModel([{ toolCalls: [{ name: 'bad_anything' }] }, 'ok']);
    const kernel = await bootMcp(
      { servers: { bad: { command: '/nonexistent/hubos-mcp-server' }, fx: fixtureServer() } },
      { logger, config: { agents: { dev: { model, tools: ['bad_*', 'fx_echo'] } } } },
    );
    expect(kernel.agent('dev').tools.map((tool) => tool.name)).toEqual(['fx_echo']);
    const bad = statusOf(kernel, 'bad');
    expect(bad.state).toBe('failed');
    expect(bad.error).toContain('cannot run "/nonexistent/hubos-mcp-server": not found');
    expect(logger.warnings()[0]).toMatch(
      /^warn: MCP server "bad" failed to start: cannot run .* \(attempt 1\); retrying in/,
    );
    await until(() => statusOf(kernel, 'bad').attempts >= 3, 'more attempts');
    expect(kernel.service('mcp').clients.degraded).toBe(true);
    // An agent naming its tools runs; the model hears the tool is not there.
    const result = await kernel.agent('dev').run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_FOUND' } });
  });

  it('does not retry a URL that cannot be parsed', async () => {
    const logger = recordingLogger();
    const kernel = await bootMcp({ servers: { u: { url: 'http://' } } }, { logger });
    expect(statusOf(kernel, 'u')).toMatchObject({
      state: 'failed',
      error: 'its url "http://" is not a valid URL',
    });
    expect(statusOf(kernel, 'u').nextRetryAt).toBeUndefined();
    expect(logger.warnings()).toEqual([
      'warn: MCP server "u" failed to start: its url "http://" is not a valid URL; fix its config and restart HubOS',
    ]);
  });

  it('says when the working folder does not exist', async () => {
    const kernel = await bootMcp({ servers: { lost: fixtureServer([], { cwd: 'no-such-folder' }) } });
    expect(statusOf(kernel, 'lost').error).toMatch(
      /^its working folder .*\/no-such-folder does not exist \(check "cwd"\)$/,
    );
  });

  it('reports the last stderr lines of a server that exits at once', async () => {
    const logger = recordingLogger();
    const kernel = await bootMcp(
      { servers: { early: fixtureServer(['--stderr', 'boom: MY_API_KEY is not set', '--exit', '1']) } },
      { logger },
    );
    const status = statusOf(kernel, 'early');
    expect(status).toMatchObject({
      state: 'failed',
      error: 'the process exited before it finished starting',
    });
    expect(status.stderr).toEqual(['boom: MY_API_KEY is not set']);
    expect(logger.warnings()[0]).toContain(
      'MCP server "early" failed to start: the process exited before it finished starting',
    );
    expect(logger.warnings()[0]).toContain('stderr: boom: MY_API_KEY is not set');
  });

  it('gives up a server that never answers after startTimeoutMs, and retries it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hubos-mcp-'));
    dirs.push(dir);
    const pidFile = join(dir, 'pids');
    // A shell that records its pid and then sleeps: it starts in milliseconds even on a loaded
    // machine (a Node fixture could be killed by the timeout before saying who it is), never
    // answers, and ignores stdin closing, so only a signal ends it.
    const mute = {
      command: 'sh',
      args: ['-c', `echo $$ >> '${pidFile}'; exec sleep 600`],
      startTimeoutMs: 600,
    };
    const started = Date.now();
    const kernel = await bootMcp({ servers: { mute } });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(statusOf(kernel, 'mute')).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/^it did not finish starting within 600 ms \(startTimeoutMs\)/),
    });
    await until(() => statusOf(kernel, 'mute').attempts >= 2, 'a second attempt');
    const pids = () =>
      (existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : '').split('\n').filter(Boolean).map(Number);
    await until(() => pids().length >= 1, 'a started server to record its pid');
    // Closing the kernel has to signal every server it started, and waits until each is gone.
    await kernel.close();
    const recorded = pids();
    expect(recorded.every((pid) => pid > 0)).toBe(true);
    expect(recorded.filter(alive)).toEqual([]);
  });

  it('waits at most bootWaitMs at boot; a server still starting carries on', async () => {
    const started = Date.now();
    const kernel = await bootMcp({
      servers: { mute: fixtureServer(['--silent'], { startTimeoutMs: 60_000 }) },
      bootWaitMs: 300,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(statusOf(kernel, 'mute').state).toBe('starting');
  });

  it('gives an agent the tools of a server that came up after boot', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hubos-mcp-'));
    dirs.push(dir);
    const marker = join(dir, 'ready');
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'late_echo', input: { text: 'finally' } }] },
      'ok',
    ]);
    const kernel = await bootMcp(
      { servers: { late: fixtureServer(['--unless-file', marker]) } },
      { config: { agents: { dev: { model, tools: ['late_echo'] } } } },
    );
    expect(statusOf(kernel, 'late').state).toBe('failed');
    expect(statusOf(kernel, 'late').stderr).toEqual([`missing ${marker}`]);
    expect(kernel.agent('dev').tools).toEqual([]);
    await writeFile(marker, '');
    await until(() => kernel.agent('dev').tools.length === 1, 'the agent to get late_echo');
    const result = await kernel.agent('dev').run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: true, output: 'finally' });
    expect(existsSync(marker)).toBe(true);
  });

  it('stops after restart.maxAttempts failures in a row', async () => {
    const logger = recordingLogger();
    const kernel = await bootMcp(
      {
        servers: { bad: { command: '/nonexistent/hubos-mcp-server' } },
        restart: { initialDelayMs: 20, maxAttempts: 2 },
      },
      { logger },
    );
    await until(() => statusOf(kernel, 'bad').attempts === 2, 'the second attempt');
    await until(() => logger.warnings().some((line) => line.includes('giving up')), 'the give-up warning');
    const status = statusOf(kernel, 'bad');
    expect(status.state).toBe('failed');
    expect(status.nextRetryAt).toBeUndefined();
    expect(logger.warnings()[1]).toContain(
      'giving up after 2 failed attempt(s) in a row (restart.maxAttempts)',
    );
  });

  it('stops the child when the kernel closes', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'fx_pid' }] }, 'ok']);
    const kernel = await bootMcp(
      { servers: { fx: fixtureServer() } },
      { config: { agents: { dev: { model, tools: ['fx_pid'] } } } },
    );
    const pid = Number((await kernel.agent('dev').run('pid')).toolCalls[0]!.output);
    expect(alive(pid)).toBe(true);
    await kernel.close();
    expect(alive(pid)).toBe(false);
    expect(statusOf(kernel, 'fx').state).toBe('closed');
  });

  it('stops the children when the boot fails after they started', async () => {
    const marker = `marker-${randomUUID()}`;
    const boot = bootMcp(
      { servers: { fx: fixtureServer(['--stderr', marker]) } },
      { config: { agents: { dev: { model: new ScriptedModel(), tools: ['nope_*'] } } } },
    );
    await expect(boot).rejects.toThrow('no registered tool matches "nope_*"');
    expect(pidsWithArg(marker)).toEqual([]);
  });
});
