import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { createSandbox, type ToolResult } from '../../../../core/index.ts';
import {
  type FilesystemOptions,
  filesystemTools,
} from '../../../../plugins/builtin-tools/filesystem/index.ts';
import { invokeTool } from '../../../../testing/index.ts';

/** What every escape test looks for: this text lives only outside the workspace. */
export const SECRET = 'TOP-SECRET-OUTSIDE';

export interface Workspace {
  /** The workspace root (a real path). */
  root: string;
  /** A folder next to it holding `secret.txt`; nothing may ever read or change it through the tools. */
  outside: string;
  call(name: string, input: unknown, signal?: AbortSignal): Promise<ToolResult>;
  /** Calls a tool that must succeed and returns its output. */
  // biome-ignore lint/suspicious/noExplicitAny: each tool has its own result shape; tests read fields.
  ok(name: string, input: unknown): Promise<any>;
  /** Calls a tool that must fail and returns its error message. */
  fails(name: string, input: unknown): Promise<string>;
  write(files: Record<string, string | Buffer>): Promise<void>;
}

/** A fresh workspace and outside folder (real temp dirs), removed when the test ends. */
export async function workspace(options: FilesystemOptions = {}): Promise<Workspace> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'hubos-fs-root-')));
  const outside = await realpath(await mkdtemp(join(tmpdir(), 'hubos-fs-outside-')));
  await writeFile(join(outside, 'secret.txt'), `${SECRET}\n`);
  onTestFinished(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });
  const tools = new Map(filesystemTools(options).map((tool) => [tool.name, tool]));
  const sandbox = createSandbox(root);
  const call = (name: string, input: unknown, signal?: AbortSignal) => {
    const tool = tools.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return invokeTool(tool, input, { sandbox, ...(signal ? { signal } : {}) });
  };
  return {
    root,
    outside,
    call,
    async ok(name, input) {
      const result = await call(name, input);
      if (!result.ok) expect.fail(`${name} ${JSON.stringify(input)} failed: ${result.error.message}`);
      return result.output;
    },
    async fails(name, input) {
      const result = await call(name, input);
      if (result.ok)
        expect.fail(`${name} ${JSON.stringify(input)} succeeded: ${JSON.stringify(result.output)}`);
      expect(result.error.code).toBe('TOOL_FAILED');
      return result.error.message;
    },
    async write(files) {
      for (const [path, content] of Object.entries(files)) {
        await mkdir(dirname(join(root, path)), { recursive: true });
        await writeFile(join(root, path), content);
      }
    },
  };
}

/** A named pipe, made with the system's `mkfifo`. */
export function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}
