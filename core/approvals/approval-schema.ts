/**
 * The approvals table, the same in both dialects but for their types. `record` is the approval's
 * JSON text, which a decision's compare-and-set compares; the other columns say who it is for and
 * where it stands, so a list of pending ones (an owner's, or everyone's) reads only pending rows,
 * in order, from an index: decided ones, however many are kept, are never read.
 */
export function approvalTable(dialect: 'sqlite' | 'postgres'): string {
  const text = dialect === 'sqlite' ? 'TEXT' : 'text COLLATE "C"';
  const time = dialect === 'sqlite' ? 'INTEGER' : 'bigint';
  return `
CREATE TABLE hubos_approvals (
  run_id ${text} NOT NULL,
  call_id ${text} NOT NULL,
  owner ${text} NOT NULL,
  status ${text} NOT NULL,
  requested_at ${time} NOT NULL,
  decided_at ${time},
  record ${text} NOT NULL,
  PRIMARY KEY (run_id, call_id)
);
CREATE INDEX hubos_approvals_owner_status ON hubos_approvals (owner, status, requested_at, run_id, call_id);
CREATE INDEX hubos_approvals_pending ON hubos_approvals (requested_at, run_id, call_id) WHERE status = 'pending';
CREATE INDEX hubos_approvals_owner ON hubos_approvals (owner, requested_at, run_id, call_id);
CREATE INDEX hubos_approvals_requested ON hubos_approvals (requested_at, run_id, call_id);
CREATE INDEX hubos_approvals_decided ON hubos_approvals (decided_at) WHERE status <> 'pending';`;
}
