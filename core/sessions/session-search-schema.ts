/**
 * What makes sessions searchable (what memory's recall reads), a migration per dialect. A session
 * now says which end user of its owner it is for (`user_id`, '' when the caller named none), and
 * the text of its user and assistant messages is indexed for full-text search as it is written:
 * on SQLite by triggers into a contentless FTS5 table keyed by the message's rowid, on PostgreSQL
 * in a generated tsvector column with a GIN index. Either way deleting a session's messages
 * (retention, erasure) drops them from the index in the same statement.
 *
 * Both tokenize the same way, without stemming (any language): SQLite's unicode61 with diacritics
 * folded, PostgreSQL's `simple` configuration. Tool results are not indexed: they can be huge and
 * what mattered of them is usually in the answer that followed.
 *
 * SQLite's `hubos_session_search_terms` tells in how many messages each word is: a search leaves
 * out words so common that ranking their matches would cost more than it tells (see `selective`).
 */
export const SESSION_SEARCH_SQLITE_SQL = `
ALTER TABLE hubos_sessions ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
CREATE INDEX hubos_sessions_owner_user ON hubos_sessions (owner, user_id, agent);
CREATE VIRTUAL TABLE hubos_session_search USING fts5(
  text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE hubos_session_search_terms USING fts5vocab(hubos_session_search, 'row');
CREATE TRIGGER hubos_session_search_add AFTER INSERT ON hubos_session_messages
  WHEN json_valid(new.message)
    AND json_extract(new.message, '$.role') IN ('user', 'assistant')
    AND json_type(new.message, '$.content') = 'text'
BEGIN
  INSERT INTO hubos_session_search (rowid, text)
    VALUES (new.rowid, substr(json_extract(new.message, '$.content'), 1, ${100_000}));
END;
CREATE TRIGGER hubos_session_search_drop AFTER DELETE ON hubos_session_messages
BEGIN
  DELETE FROM hubos_session_search WHERE rowid = old.rowid;
END;
INSERT INTO hubos_session_search (rowid, text)
  SELECT rowid, substr(json_extract(message, '$.content'), 1, ${100_000}) FROM hubos_session_messages
  WHERE json_valid(message)
    AND json_extract(message, '$.role') IN ('user', 'assistant')
    AND json_type(message, '$.content') = 'text';`;

/**
 * On PostgreSQL the text is read from the message's JSON by a function of its own: a message
 * jsonb refuses (one holding a NUL character), or one that is not a user's or assistant's text,
 * is not indexed, rather than failing its append. The text is cut at 100,000 characters, under the size
 * a tsvector may have.
 */
export const SESSION_SEARCH_POSTGRES_SQL = `
ALTER TABLE hubos_sessions ADD COLUMN user_id text COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX hubos_sessions_owner_user ON hubos_sessions (owner, user_id, agent);
CREATE FUNCTION hubos_message_search(message text) RETURNS tsvector
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  doc jsonb;
BEGIN
  doc := message::jsonb;
  IF doc->>'role' IN ('user', 'assistant') AND jsonb_typeof(doc->'content') = 'string' THEN
    RETURN to_tsvector('simple'::regconfig, left(doc->>'content', 100000));
  END IF;
  RETURN NULL;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;
ALTER TABLE hubos_session_messages
  ADD COLUMN search tsvector GENERATED ALWAYS AS (hubos_message_search(message)) STORED;
CREATE INDEX hubos_session_messages_search ON hubos_session_messages USING gin (search);`;
