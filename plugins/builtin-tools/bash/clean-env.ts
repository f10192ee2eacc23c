import { userInfo } from 'node:os';

/** Passed through from the server when set; everything else (API keys, cloud credentials) stays out. */
const PASSED_THROUGH = ['LANG', 'LC_ALL', 'TZ'] as const;

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The whole environment a command sees: an allow-list, never a copy of `process.env` minus a
 * deny-list, so a secret added to the server tomorrow cannot leak into commands.
 * `extra` names are the operator's explicit opt-in and override the defaults.
 */
export function cleanEnv(options: {
  home: string;
  shell: string;
  extra?: readonly string[];
  from?: NodeJS.ProcessEnv;
}): Record<string, string> {
  const from = options.from ?? process.env;
  const env: Record<string, string> = {
    PATH: from.PATH || FALLBACK_PATH,
    // HOME is the workspace: dotfiles a command writes stay there, the server's own are not read.
    HOME: options.home,
    // No terminal on the other end: "dumb" keeps colour codes and pagers out of captured output.
    TERM: from.TERM || 'dumb',
    USER: from.USER || currentUser(),
    SHELL: options.shell,
  };
  for (const name of [...PASSED_THROUGH, ...(options.extra ?? [])]) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'user';
  }
}
