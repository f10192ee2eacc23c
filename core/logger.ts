export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Writes to stderr (stdout stays for command output); debug lines only with HUBOS_DEBUG set. */
export function createConsoleLogger(prefix = 'hubos'): Logger {
  const write = (level: string, message: string) => process.stderr.write(`[${prefix}] ${level}${message}\n`);
  return {
    debug: (message) => process.env.HUBOS_DEBUG && write('debug: ', message),
    info: (message) => write('', message),
    warn: (message) => write('warning: ', message),
    error: (message) => write('error: ', message),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
