/**
 * The records table of the typed record API, the same in both dialects but for their types: one
 * row per record of every plugin's tables (`name`), its value the JSON text (which a
 * compare-and-set compares), filed by owner, time and tag. Each index ends with the key, so a page
 * in time order is read from the index as it stands, with no sort, and its cursor is a seek.
 */
export function recordsTable(dialect: 'sqlite' | 'postgres'): string {
  const text = dialect === 'sqlite' ? 'TEXT' : 'text COLLATE "C"';
  const time = dialect === 'sqlite' ? 'INTEGER' : 'bigint';
  return `
CREATE TABLE hubos_records (
  name ${text} NOT NULL,
  key ${text} NOT NULL,
  owner ${text},
  time ${time} NOT NULL,
  tag ${text},
  value ${text} NOT NULL,
  PRIMARY KEY (name, key)
);
CREATE INDEX hubos_records_owner ON hubos_records (name, owner, time, key);
CREATE INDEX hubos_records_time ON hubos_records (name, time, key);
CREATE INDEX hubos_records_tag ON hubos_records (name, tag, time, key);`;
}

/** The PostgreSQL store's migration that adds it. */
export const RECORDS_POSTGRES_SQL = recordsTable('postgres');
