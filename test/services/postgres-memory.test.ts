// Memory across sessions on PostgreSQL: recall through its full-text index, scoped by key and user.
import { memoryContract } from '../plugins/memory/memory-contract.ts';
import { pgSchemas } from './helpers/pg-schemas.ts';

const { open, newSchema } = pgSchemas('pgmemory');

memoryContract('PostgreSQL', () => open(newSchema()));
