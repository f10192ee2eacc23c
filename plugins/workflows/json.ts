import { HubosError } from '../../core/index.ts';

/** A step's output as JSON, as the runs table will keep it (undefined stays undefined). */
export function toJson(value: unknown, where: string): unknown {
  if (value === undefined) return undefined;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch (error) {
    throw new HubosError(
      'RUN_FAILED',
      `${where}: the output is not JSON data (${(error as Error).message}); return plain data`,
    );
  }
}
