import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, commandHelp } from '../../bin/command-help.ts';
import { hubos, ROOT } from '../helpers/run.ts';

describe('each command has its own help', () => {
  it('hubos <command> --help and hubos help <command> print its synopsis, options and an example', async () => {
    const results = await Promise.all(
      COMMAND_NAMES.flatMap((command) => [
        hubos([command, '--help'], ROOT),
        hubos(['help', command], ROOT),
        hubos([command, '-h'], ROOT),
      ]),
    );
    for (const [i, command] of COMMAND_NAMES.entries()) {
      const help = commandHelp(command)!;
      expect(help.startsWith(`Usage: hubos ${command}`), command).toBe(true);
      expect(help).toMatch(/\nOptions:\n[\s\S]*-h, --help {18}show this help\n/);
      expect(help).toMatch(/\nExamples?:\n {2}hubos /);
      for (const result of results.slice(i * 3, i * 3 + 3)) {
        expect(result, command).toEqual({ code: 0, stdout: help, stderr: '' });
      }
    }
  });

  it('shows what a command takes', () => {
    expect(commandHelp('serve')).toContain(
      '  --port <n>                  the port, 0 to 65535 (0 picks a free one); default: server.port, else PORT, else 3000\n',
    );
    expect(commandHelp('run')).toContain('Arguments:\n  <agent>');
    expect(commandHelp('tools')).toContain('  --config <file>');
    expect(commandHelp('create-plugin')).not.toContain('--config');
  });

  it('--help wins over the other arguments, but not after --', async () => {
    const help = await hubos(['run', 'assistant', 'hello', '--help'], ROOT);
    expect(help).toEqual({ code: 0, stdout: commandHelp('run'), stderr: '' });
    const message = await hubos(['tools', '--', '--help'], ROOT);
    expect(message.code).toBe(2);
    expect(message.stderr).toBe(`hubos: tools: unexpected argument "--help"\n\n${commandHelp('tools')}`);
  });

  it('hubos help alone, and hubos help help, print the usage', async () => {
    for (const args of [['help'], ['help', 'help']]) {
      const result = await hubos(args, ROOT);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: hubos <command> \[options\]\n/);
      expect(result.stdout).toContain('"hubos help <command>" (or "hubos <command> --help")');
    }
  });

  it('help for a command that does not exist names the closest one, exit 2', async () => {
    const typo = await hubos(['help', 'serv'], ROOT);
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toMatch(
      /^hubos: unknown command "serv" \(did you mean "hubos serve"\?\)\n\nUsage: hubos <command>/,
    );
    const unknown = await hubos(['frobnicate', '--help'], ROOT);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^hubos: unknown command "frobnicate": run "hubos help" for the list\n\nUsage:/,
    );
  });

  it("a command's usage error is followed by its own help", async () => {
    const result = await hubos(['tools', '--jsno'], ROOT);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `hubos: tools: unknown option "--jsno" (did you mean "--json"?)\n\n${commandHelp('tools')}`,
    );
    const far = await hubos(['validate', '--json'], ROOT);
    expect(far.code).toBe(2);
    expect(far.stderr).toBe(
      `hubos: validate: unknown option "--json" (its options: --config, --mode, --help)\n\n${commandHelp('validate')}`,
    );
    const run = await hubos(['run', 'assistant'], ROOT);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `hubos: run needs an agent and a message, e.g. hubos run assistant "hello"\n\n${commandHelp('run')}`,
    );
  });

  it('a subcommand typo names the closest one', async () => {
    const workflow = await hubos(['workflow', 'lsit'], ROOT);
    expect(workflow.code).toBe(2);
    expect(workflow.stderr).toMatch(
      /^hubos: workflow: unknown subcommand "lsit" \(did you mean "hubos workflow list"\?\); its subcommands: list, run <name> \[<input JSON>\], resume <runId>\n\nUsage: hubos workflow/,
    );
    const mcp = await hubos(['mcp', 'lst'], ROOT);
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toMatch(/^hubos: mcp: unknown subcommand "lst" \(did you mean "hubos mcp list"\?\)/);
    const option = await hubos(['--verison'], ROOT);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^hubos: unknown option "--verison" \(did you mean "--version"\?\)\n/);
  });
});
