import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { LOG_LEVELS, type LogLevel } from '../../../core/index.ts';

/**
 * A session's `logging/setLevel`: the least severe level its client wants to hear. Until the
 * client says, `info` and above reach it (debug chatter only when asked for).
 */
export class LogLevelGate {
  #min: number = LOG_LEVELS.indexOf('info');

  set(level: LogLevel): void {
    this.#min = LOG_LEVELS.indexOf(level);
  }

  allows(level: LogLevel): boolean {
    return LOG_LEVELS.indexOf(level) >= this.#min;
  }
}

/** A level as MCP knows it: a tool's unknown level (plain JavaScript can pass anything) counts as `info`. */
export function knownLevel(level: unknown): LogLevel {
  return LOG_LEVELS.includes(level as LogLevel) ? (level as LogLevel) : 'info';
}

/**
 * A tool's `tc.log` as MCP's `notifications/message`: the tool as the logger, the message as the
 * data (with the tool's data beside it when given, as JSON can carry it).
 */
export function logNotification(
  logger: string,
  level: LogLevel,
  message: string,
  data?: unknown,
): ServerNotification {
  const text = String(message);
  return {
    method: 'notifications/message',
    params: { level, logger, data: data === undefined ? text : { message: text, data: asJson(data) } },
  };
}

/** Data as JSON can carry it: cycles, BigInts and functions become their text. */
function asJson(data: unknown): unknown {
  try {
    const json = JSON.stringify(data);
    return json === undefined ? String(data) : JSON.parse(json);
  } catch {
    return String(data);
  }
}
