export interface CliIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
}

/** Thrown for bad command lines: the CLI prints the message and the usage, and exits 2. */
export class UsageError extends Error {}
