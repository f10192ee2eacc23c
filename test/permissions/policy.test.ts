import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../core/config-schema.ts';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from '../../core/index.ts';
import { createPolicy, describeVerdict } from '../../core/internal.ts';
import { expectHubosError } from '../core/helpers.ts';

const tool = (name: string, ...permissions: string[]) => ({ name, permissions });

describe('createPolicy: defaults', () => {
  it('allows what no rule matches, naming no rule', () => {
    expect(createPolicy().decide(tool('bash', 'shell:exec'))).toEqual({ decision: 'allow' });
    expect(createPolicy({ deny: ['net:*'] }).decide(tool('plain'))).toEqual({ decision: 'allow' });
  });

  it('waits 5 minutes for an approval unless told otherwise', () => {
    expect(DEFAULT_APPROVAL_TIMEOUT_MS).toBe(300_000);
    expect(createPolicy().approvalTimeoutMs).toBe(300_000);
    expect(createPolicy({ approvalTimeoutMs: 10 }).approvalTimeoutMs).toBe(10);
  });
});

describe('createPolicy: precedence', () => {
  const policy = createPolicy({ allow: ['fs:*'], ask: ['fs:write'], deny: ['fs:delete'] });

  it('deny beats ask beats allow', () => {
    expect(policy.decide(tool('read', 'fs:read'))).toEqual({
      decision: 'allow',
      rule: 'fs:*',
      permission: 'fs:read',
    });
    expect(policy.decide(tool('write', 'fs:write'))).toMatchObject({ decision: 'ask', rule: 'fs:write' });
    expect(policy.decide(tool('rm', 'fs:delete'))).toMatchObject({ decision: 'deny', rule: 'fs:delete' });
    expect(createPolicy({ allow: ['*'], ask: ['*'], deny: ['*'] }).decide(tool('x')).decision).toBe('deny');
  });

  it('within a list the first matching pattern is the rule', () => {
    const verdict = createPolicy({ deny: ['shell:*', 'shell:exec', '*'] }).decide(tool('bash', 'shell:exec'));
    expect(verdict).toEqual({ decision: 'deny', rule: 'shell:*', permission: 'shell:exec' });
  });

  it('takes the strictest decision over the name and each permission', () => {
    const policy = createPolicy({ allow: ['fs:read', 'fetcher'], ask: ['net:*'] });
    expect(policy.decide(tool('fetcher', 'fs:read', 'net:http'))).toEqual({
      decision: 'ask',
      rule: 'net:*',
      permission: 'net:http',
    });
  });

  it('on a tie keeps the earliest subject, and prefers a rule to the default', () => {
    expect(createPolicy({ deny: ['fs:*'] }).decide(tool('x', 'fs:read', 'fs:write')).permission).toBe(
      'fs:read',
    );
    expect(createPolicy({ allow: ['fs:read'] }).decide(tool('x', 'fs:read'))).toEqual({
      decision: 'allow',
      rule: 'fs:read',
      permission: 'fs:read',
    });
  });
});

describe('createPolicy: globs', () => {
  it('match tool names as well as permissions', () => {
    expect(createPolicy({ deny: ['bash'] }).decide(tool('bash', 'shell:exec'))).toEqual({
      decision: 'deny',
      rule: 'bash',
      permission: 'bash',
    });
    expect(createPolicy({ ask: ['http_*'] }).decide(tool('http_get')).decision).toBe('ask');
    expect(createPolicy({ ask: ['http_*'] }).decide(tool('https')).decision).toBe('allow');
  });

  it("'*' matches everything, '?' one character, other characters themselves", () => {
    expect(createPolicy({ ask: ['*'] }).decide(tool('anything')).decision).toBe('ask');
    expect(createPolicy({ ask: ['*'] }).decide({ name: 'no_permissions' }).decision).toBe('ask');
    expect(createPolicy({ deny: ['fs:??ad'] }).decide(tool('x', 'fs:read')).decision).toBe('deny');
    expect(createPolicy({ deny: ['fs.read'] }).decide(tool('x', 'fs:read')).decision).toBe('allow');
    expect(createPolicy({ deny: ['fs:'] }).decide(tool('x', 'fs:read')).decision).toBe('allow');
  });

  it('cover third-party permissions', () => {
    expect(createPolicy({ deny: ['db:*'] }).decide(tool('query', 'db:write')).decision).toBe('deny');
  });
});

describe('createPolicy: agent rules', () => {
  it('are checked first, so they override the global rules for what they match', () => {
    const policy = createPolicy({ deny: ['shell:*'] }, { allow: ['shell:exec'] });
    expect(policy.decide(tool('bash', 'shell:exec'))).toEqual({
      decision: 'allow',
      rule: 'shell:exec',
      permission: 'shell:exec',
    });
  });

  it('leave the global rules in force for what they do not match', () => {
    const policy = createPolicy({ deny: ['bash', 'net:*'] }, { allow: ['shell:*', 'fs:*'] });
    expect(policy.decide(tool('bash', 'shell:exec'))).toMatchObject({ decision: 'deny', rule: 'bash' });
    expect(policy.decide(tool('fetch', 'fs:read', 'net:http'))).toMatchObject({ decision: 'deny' });
  });

  it('can add rules and their own timeout', () => {
    const policy = createPolicy(
      { allow: ['*'], approvalTimeoutMs: 1_000 },
      { ask: ['fs:write'], approvalTimeoutMs: 20 },
    );
    expect(policy.decide(tool('write', 'fs:write')).decision).toBe('ask');
    expect(policy.approvalTimeoutMs).toBe(20);
    expect(createPolicy({ approvalTimeoutMs: 1_000 }, { ask: ['*'] }).approvalTimeoutMs).toBe(1_000);
  });
});

describe('describeVerdict', () => {
  it('says what was matched and by which rule', () => {
    const subject = tool('bash', 'shell:exec');
    const verdict = createPolicy({ deny: ['shell:*'] }).decide(subject);
    expect(describeVerdict(verdict, subject)).toBe("shell:exec (rule deny 'shell:*')");
    expect(describeVerdict({ decision: 'deny' }, subject)).toBe('bash');
  });
});

describe('the permissions config key', () => {
  it('is validated, with the timeout default applied', () => {
    const config = validateConfig({ permissions: { ask: ['fs:write'] } }, new Map(), undefined);
    expect(config.permissions).toEqual({ ask: ['fs:write'], approvalTimeoutMs: 300_000 });
  });

  it('rejects unknown keys and wrong types, naming them', () => {
    const error = expectHubosError(
      () => validateConfig({ permissions: { alow: ['*'], deny: 'bash' } }, new Map(), 'agent.config.ts'),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain('unknown property "permissions.alow"');
    expect(error.message).toContain('"permissions.deny" must be array');
    expectHubosError(
      () => validateConfig({ permissions: { approvalTimeoutMs: 0 } }, new Map(), undefined),
      'CONFIG_INVALID',
    );
  });

  it('is accepted on an agent template, without a default timeout (it inherits the global one)', () => {
    const config = validateConfig(
      { agents: { a: { permissions: { deny: ['net:*'] } } } },
      new Map(),
      undefined,
    );
    expect(config.agents!.a!.permissions).toEqual({ deny: ['net:*'] });
    expectHubosError(
      () => validateConfig({ agents: { a: { permissions: { allow: [''] } } } }, new Map(), undefined),
      'CONFIG_INVALID',
    );
  });
});
