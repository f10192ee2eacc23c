/** `bash` caps what it captures per stream, keeping the start and the end with a marker between. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../../../plugins/builtin-tools/bash/index.ts';
import { OutputCap } from '../../../../plugins/builtin-tools/bash/output-cap.ts';
import { invokeTool } from '../../../../testing/index.ts';
import { outputOf, tempWorkspace } from '../../../fixtures/bash/workspace.ts';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace();
});
afterEach(() => ws.remove());

describe('bash output cap', () => {
  it('caps a flood at 64 KiB per stream by default, saying how many bytes were dropped', async () => {
    const output = outputOf(
      await invokeTool(bashTool(), { command: 'yes | head -c 5000000; echo last' }, { sandbox: ws.sandbox }),
    );
    expect(output.exitCode).toBe(0);
    expect(output.truncated).toBe(true);
    const dropped = 5_000_005 - 64 * 1024;
    expect(output.stdout).toContain(`\n[... ${dropped} more bytes dropped]\n`);
    expect(output.stdout.length).toBeLessThan(64 * 1024 + 100);
    expect(output.stdout.startsWith('y\ny\n')).toBe(true);
    expect(output.stdout.endsWith('y\nlast\n')).toBe(true);
  });

  it('caps each stream on its own, at maxOutputBytes', async () => {
    const tool = bashTool({ maxOutputBytes: 1_000 });
    const command = 'head -c 100000 /dev/zero | tr "\\0" e >&2; echo fine';
    const output = outputOf(await invokeTool(tool, { command }, { sandbox: ws.sandbox }));
    expect(output.stdout).toBe('fine\n');
    expect(output.stderr).toBe(`${'e'.repeat(500)}\n[... 99000 more bytes dropped]\n${'e'.repeat(500)}`);
    expect(output.truncated).toBe(true);
  });

  it('leaves output under the cap untouched', async () => {
    const tool = bashTool({ maxOutputBytes: 1_000 });
    const output = outputOf(
      await invokeTool(tool, { command: 'head -c 1000 /dev/zero | tr "\\0" a' }, { sandbox: ws.sandbox }),
    );
    expect(output.stdout).toBe('a'.repeat(1_000));
    expect(output).not.toHaveProperty('truncated');
  });
});

describe('OutputCap', () => {
  it('keeps head and tail across many small chunks', () => {
    const cap = new OutputCap(10);
    for (const char of 'abcdefghijklmnopqrstuvwxyz') cap.write(char);
    expect(cap.droppedBytes).toBe(16);
    expect(cap.text()).toBe('abcde\n[... 16 more bytes dropped]\nvwxyz');
  });

  it('never cuts a UTF-8 character in half, and counts what that drops', () => {
    const cap = new OutputCap(8);
    cap.write('ab€€€€cd'); // 16 bytes, € is 3: the head limit (4) and the tail limit (4) split a €
    const text = cap.text();
    expect(text).not.toContain('\uFFFD');
    expect(text).toBe('ab\n[... 12 more bytes dropped]\ncd');
  });

  it('keeps a character that ends exactly at the head limit', () => {
    const cap = new OutputCap(10);
    cap.write('abc€xxxxxxxxxxyz'); // "abc€" is 6 bytes, over the head limit (5): € goes
    expect(cap.text()).toBe('abc\n[... 10 more bytes dropped]\nxxxyz');
    const fits = new OutputCap(10);
    fits.write('ab€xxxxxxxxxxyz'); // head "ab€" is exactly 5 bytes
    expect(fits.text()).toBe('ab€\n[... 7 more bytes dropped]\nxxxyz');
  });
});
