/** The `sandbox` config key and the startup check; the sandbox itself is tested in test/system/bwrap.test.ts. */
import { describe, expect, it } from 'vitest';
import { HubosError } from '../../../../core/index.ts';
import { createAjv } from '../../../../core/internal.ts';
import { probeBwrap } from '../../../../plugins/builtin-tools/bash/bwrap.ts';
import {
  BASH_CONFIG_SCHEMA,
  bashTool,
  checkSandbox,
  SANDBOX_CONFIG_SCHEMA,
  unsandboxedWarning,
} from '../../../../plugins/builtin-tools/bash/index.ts';
import { invokeTool } from '../../../../testing/index.ts';
import { outputOf, tempWorkspace } from '../../../fixtures/bash/workspace.ts';
import { launcherKind } from './processes.ts';

const MISSING = '/nonexistent/bwrap';

describe('SANDBOX_CONFIG_SCHEMA', () => {
  const validate = createAjv().compile(SANDBOX_CONFIG_SCHEMA);

  it('accepts none and bwrap, with network off by default', () => {
    const config = { kind: 'bwrap' };
    expect(validate(config)).toBe(true);
    expect(config).toEqual({ kind: 'bwrap', network: false });
    expect(validate({ kind: 'none' })).toBe(true);
    expect(validate({ kind: 'bwrap', network: true, bwrapPath: '/opt/bin/bwrap' })).toBe(true);
    expect(validate({ kind: 'bwrap', expose: ['/home/me/.nvm'] })).toBe(true);
  });

  it.each([
    ['an unknown kind', { kind: 'docker' }],
    ['a missing kind', { network: true }],
    ['a non-boolean network', { kind: 'bwrap', network: 'yes' }],
    ['an unknown key', { kind: 'bwrap', readOnly: true }],
    ['a relative path to expose', { kind: 'bwrap', expose: ['.nvm'] }],
  ])('rejects %s', (_name, config) => {
    expect(validate(config)).toBe(false);
  });
});

describe('BASH_CONFIG_SCHEMA', () => {
  const validate = createAjv().compile(BASH_CONFIG_SCHEMA);

  it('accepts limits, each optional', () => {
    expect(validate({})).toBe(true);
    expect(validate({ limits: {} })).toBe(true);
    expect(
      validate({
        limits: { processes: 256, memoryBytes: 4 * 1024 ** 3, cpuSeconds: 60, fileBytes: 1024 ** 2 },
      }),
    ).toBe(true);
  });

  it.each([
    ['an unknown limit', { limits: { memory: 1024 } }],
    ['a process limit a shell cannot live with', { limits: { processes: 1 } }],
    ['memory too small to start a program', { limits: { memoryBytes: 1024 } }],
    ['a fractional CPU time', { limits: { cpuSeconds: 1.5 } }],
    ['a string', { limits: { fileBytes: '1G' } }],
    ['an unknown key', { timeout: 5 }],
  ])('rejects %s', (_name, config) => {
    expect(validate(config)).toBe(false);
  });
});

describe('checkSandbox', () => {
  it('has nothing to check without a bwrap sandbox', () => {
    expect(() => checkSandbox()).not.toThrow();
    expect(() => checkSandbox({ sandbox: { kind: 'none' } })).not.toThrow();
  });

  it('fails startup, saying how to install bubblewrap, when bwrap is missing', () => {
    let error: unknown;
    try {
      checkSandbox({ sandbox: { kind: 'bwrap', bwrapPath: MISSING } });
    } catch (caught) {
      error = caught;
    }
    expect(HubosError.is(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(/apt-get install bubblewrap/);
    expect((error as Error).message).toContain(MISSING);
  });

  it('rejects an unknown kind from untyped config', () => {
    expect(() => checkSandbox({ sandbox: { kind: 'docker' as 'none' } })).toThrow(/"none" or "bwrap"/);
  });
});

describe('bash with a missing bwrap', () => {
  it('never falls back to running the command unsandboxed', async () => {
    const ws = tempWorkspace();
    try {
      const tool = bashTool({ sandbox: { kind: 'bwrap', bwrapPath: MISSING } });
      const result = await invokeTool(tool, { command: 'touch ran' }, { sandbox: ws.sandbox });
      expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
      expect(!result.ok && result.error.message).toMatch(/apt-get install bubblewrap/);
      const listed = await invokeTool(bashTool(), { command: 'ls' }, { sandbox: ws.sandbox });
      expect(listed).toMatchObject({ ok: true, output: { stdout: '' } });
    } finally {
      ws.remove();
    }
  });

  it('tells the model it is sandboxed', () => {
    expect(bashTool({ sandbox: { kind: 'bwrap' } }).description).toMatch(/no network/);
    expect(bashTool({ sandbox: { kind: 'bwrap', network: true } }).description).not.toMatch(/no network/);
    expect(bashTool({ sandbox: { kind: 'none' } }).description).not.toMatch(/Sandboxed/);
  });
});

describe('the default sandbox', () => {
  const works = probeBwrap({ kind: 'bwrap', network: false }).ok;

  it.skipIf(!works)('is bubblewrap where it works (here it does): the host is read-only', async () => {
    expect(launcherKind()).toBe('bwrap');
    expect(bashTool().description).toMatch(/Sandboxed: .*no network/);
    const ws = tempWorkspace();
    try {
      const output = outputOf(
        await invokeTool(bashTool(), { command: 'touch /usr/hubos-escaped' }, { sandbox: ws.sandbox }),
      );
      expect(output.stderr).toMatch(/Read-only file system/);
    } finally {
      ws.remove();
    }
  });

  it.skipIf(works)('is none where bubblewrap does not work (here it does not)', () => {
    expect(launcherKind()).not.toBe('bwrap');
    expect(unsandboxedWarning({}, 'coder')).toMatch(/agent "coder" can run bash commands unsandboxed/);
  });

  it('is left on purpose with kind "none", and still says what the commands can reach', () => {
    expect(launcherKind({ sandbox: { kind: 'none' } })).not.toBe('bwrap');
    const warning = unsandboxedWarning({ sandbox: { kind: 'none' } }, 'coder');
    expect(warning).toMatch(/agent "coder" runs bash commands unsandboxed, as configured/);
    expect(warning).toMatch(/read and change every file/);
    if (launcherKind({ sandbox: { kind: 'none' } }) === 'process-group')
      expect(warning).toMatch(/setsid or nohup can outlive the call/);
  });

  it('warns about nothing when sandboxed', () => {
    expect(unsandboxedWarning({ sandbox: { kind: 'bwrap' } }, 'coder')).toBeUndefined();
  });
});
