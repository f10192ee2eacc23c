/**
 * Node's file errors name the syscall and an absolute (often `/proc/self/fd/...`) path; the model
 * needs the path it asked for and what went wrong. Errors that are not errno errors pass unchanged.
 */
export function fsError(error: unknown, path: string, messages: Record<string, string> = {}): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || !(error instanceof Error) || !('syscall' in error)) return error;
  const message = messages[code] ?? defaultMessage(code, path);
  return new Error(message, { cause: error });
}

function defaultMessage(code: string, path: string): string {
  switch (code) {
    case 'ENOENT':
      return `no such file or directory: ${path}`;
    case 'ENOTDIR':
      return `not a directory: a part of ${path} is a file`;
    case 'EISDIR':
      return `is a directory: ${path}`;
    case 'ELOOP':
      return `too many levels of symbolic links: ${path}`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied: ${path}`;
    case 'ENXIO':
    case 'ENODEV':
      return `not a regular file: ${path}`;
    case 'ENAMETOOLONG':
      return `path too long: ${path}`;
    case 'ENOTEMPTY':
      return `directory not empty: ${path}`;
    case 'ENOSPC':
      return `no space left on the device while writing ${path}`;
    case 'EROFS':
      return `the workspace is read-only: cannot change ${path}`;
    default:
      return `cannot access ${path} (${code})`;
  }
}
