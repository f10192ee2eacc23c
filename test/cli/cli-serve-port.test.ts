import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { commandHelp } from '../../bin/command-help.ts';
import { hubos, tempDir, writeFiles } from '../helpers/run.ts';

const CONFIG = "export default { agents: { helper: {} }, store: { path: 'data/hubos.db' } };\n";

let busy: Server | undefined;
afterEach(() => {
  busy?.close();
  busy = undefined;
});

describe('hubos serve: the port', () => {
  it('PORT is checked like --port: the same message, naming where it came from, exit 2', async () => {
    const dir = await tempDir();
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [
        ['--port', 'abc'],
        {},
        '--port must be a whole number from 0 to 65535 (0 picks a free port), got "abc": e.g. --port 8080',
      ],
      [
        ['--port', '3.5'],
        {},
        '--port must be a whole number from 0 to 65535 (0 picks a free port), got "3.5": e.g. --port 8080',
      ],
      [
        ['--port', '70000'],
        {},
        '--port must be a whole number from 0 to 65535 (0 picks a free port), got "70000": e.g. --port 8080',
      ],
      [
        [],
        { PORT: 'abc' },
        'PORT must be a whole number from 0 to 65535 (0 picks a free port), got "abc": set PORT to one, or pass --port <n>',
      ],
      [
        [],
        { PORT: '3.5' },
        'PORT must be a whole number from 0 to 65535 (0 picks a free port), got "3.5": set PORT to one, or pass --port <n>',
      ],
      [
        [],
        { PORT: '-1' },
        'PORT must be a whole number from 0 to 65535 (0 picks a free port), got "-1": set PORT to one, or pass --port <n>',
      ],
    ];
    const results = await Promise.all(cases.map(([args, env]) => hubos(['serve', ...args], dir, env)));
    for (const [i, [args, env, message]] of cases.entries()) {
      expect(results[i], `${JSON.stringify(env)} ${args.join(' ')}`).toEqual({
        code: 2,
        stdout: '',
        stderr: `hubos: ${message}\n\n${commandHelp('serve')}`,
      });
    }
  });

  it('a busy port names the port and how to pick another, exit 1, no stack trace', async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy!.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const dir = await tempDir();
    await writeFiles(dir, { 'agent.config.mjs': CONFIG });
    const expected = `✗ port ${port} is already in use (127.0.0.1:${port}): stop what listens there, or pick another port with hubos serve --port <n>, PORT=<n>, or server.port in agent.config.ts (0 picks a free one) [LISTEN_FAILED]\n`;
    for (const [args, env] of [
      [['--port', String(port)], {}],
      [[], { PORT: String(port) }],
    ] as const) {
      const result = await hubos(['serve', ...args], dir, env);
      expect(result).toEqual({ code: 1, stdout: '', stderr: expected });
    }
  });
});
