export interface CliIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
}

/**
 * Thrown for bad command lines: the CLI prints the message and the help of `command` (else the
 * usage), and exits 2.
 */
export class UsageError extends Error {
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}
