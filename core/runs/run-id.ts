import { randomUUID } from 'node:crypto';

/**
 * A run id: a UUID version 7 (RFC 9562), its first 48 bits the time in milliseconds, the rest
 * random. Ids made later sort later, so the store appends run records at the end of its index
 * instead of dirtying a random page of it per run (a third of the SQLite store's cost per run).
 */
export function newRunId(): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V already the RFC variant
  const time = Date.now().toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
