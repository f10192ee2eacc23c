/**
 * The sessions tables, the same in both dialects but for their types. A session's row says whose
 * it is (`owner`, what erasure deletes by), when it was last written (`last_active`, what retention
 * deletes by) and how many messages it holds, which is also the next message's `seq`: an append
 * reserves its range by adding to that count, so concurrent appends never take the same numbers.
 * The first message of an append names it (`append_id`): a statement run again (PostgreSQL's, after
 * a connection lost before its answer) finds it there and appends nothing twice.
 */
export function sessionTables(dialect: 'sqlite' | 'postgres'): string {
  const text = dialect === 'sqlite' ? 'TEXT' : 'text COLLATE "C"';
  const time = dialect === 'sqlite' ? 'INTEGER' : 'bigint';
  const int = dialect === 'sqlite' ? 'INTEGER' : 'integer';
  // On PostgreSQL a delete of sessions sees the messages of its snapshot only; an append committed
  // meanwhile would leave its messages behind. The cascade reads them as they stand at its end.
  // (SQLite's writers take turns, so there a delete sees every message.)
  const cascade =
    dialect === 'postgres'
      ? ',\n  FOREIGN KEY (agent, session_id) REFERENCES hubos_sessions (agent, session_id) ON DELETE CASCADE'
      : '';
  return `
CREATE TABLE hubos_sessions (
  agent ${text} NOT NULL,
  session_id ${text} NOT NULL,
  owner ${text} NOT NULL,
  created_at ${time} NOT NULL,
  last_active ${time} NOT NULL,
  message_count ${int} NOT NULL,
  PRIMARY KEY (agent, session_id)
);
CREATE INDEX hubos_sessions_last_active ON hubos_sessions (last_active);
CREATE INDEX hubos_sessions_owner ON hubos_sessions (owner, agent, session_id);
CREATE TABLE hubos_session_messages (
  agent ${text} NOT NULL,
  session_id ${text} NOT NULL,
  seq ${int} NOT NULL,
  message ${text} NOT NULL,
  append_id ${text},
  PRIMARY KEY (agent, session_id, seq)${cascade}
);
CREATE UNIQUE INDEX hubos_session_messages_append ON hubos_session_messages (agent, session_id, append_id)
  WHERE append_id IS NOT NULL;`;
}
