import type { Context, Hono } from 'hono';
import { type ApprovalRecord, type Approvals, canSee, HubosError, isFinal } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import { readBody } from '../kit/read-body.ts';
import { encodeApprovalCursor, parseApprovalPage } from './approval-page.ts';

export const DECISION_BODY = {
  type: 'object',
  properties: {
    approved: {
      type: 'boolean',
      description:
        'true runs the call (or, for a request carrying a `question`, answers it with `content`); false denies it (declines the question).',
    },
    reason: {
      type: 'string',
      maxLength: 2_000,
      description:
        'Why: a denied call tells the model "denied by the user: <reason>"; a declined question tells the tool.',
    },
    content: {
      type: 'object',
      description:
        "The answer to the request's `question`: its fields, checked against `question.schema` (its defaults filled in); 400 APPROVAL_ANSWER_INVALID says what does not fit. Ignored for a plain approval.",
    },
  },
  required: ['approved'],
  additionalProperties: false,
} as const;

interface DecisionBody {
  approved: boolean;
  reason?: string;
  content?: Record<string, unknown>;
}

/**
 * `GET /approvals` (pending, every run), `GET /runs/:id/approvals` (pending; `?all=true` also the
 * decided ones) and `POST /runs/:id/approvals/:callId` `{ approved, reason?, content? }`. A request
 * may carry a tool's `question` (`tc.elicit`): approving answers it with `content`, checked by the
 * core against the question's schema; denying declines it. Each approval says
 * whether a run of this process is `live`ly waiting for it: after a restart the stored ones are
 * still listed, and deciding one records the decision but answers 409 (`RUN_NOT_RUNNING`).
 * A caller sees and decides only the approvals of its own runs (an admin key: all); another's
 * answer 404 as if they did not exist.
 */
export function approvalRoutes(app: Hono, hubos: HubOS): void {
  const api = hubos.apiPrefix;
  hubos.document(
    {
      method: 'get',
      path: `${api}/approvals`,
      summary:
        "The caller's tool calls waiting for approval (an admin key's: everyone's), across runs, oldest first, a page at a time: ?limit (1-200, default 50), cursor (the previous page's nextCursor), all=true (decided ones too); one carrying a `question` is a tool's question to answer",
      tags: ['runs'],
      responses: { 400: 'A limit or cursor that makes no sense (APPROVAL_QUERY_INVALID)' },
    },
    {
      method: 'get',
      path: `${api}/runs/{id}/approvals`,
      summary:
        "A run's tool calls waiting for approval, and its tools' questions (`question`: a message and the schema of the answer's fields); ?all=true: decided ones too, with their `answer`",
      tags: ['runs'],
      responses: { 404: 'No such run' },
    },
    {
      method: 'post',
      path: `${api}/runs/{id}/approvals/{callId}`,
      summary:
        "Approve or deny a tool call waiting for approval; answer a tool's question with `{ approved: true, content }`, or decline it with `{ approved: false }`",
      tags: ['runs'],
      body: DECISION_BODY,
      responses: {
        400: "Invalid body, or `content` that does not fit the question's schema (APPROVAL_ANSWER_INVALID)",
        404: 'No such run or approval request',
        409: 'Already decided, expired or cancelled; or the run is no longer running (the decision is recorded)',
      },
    },
  );

  const view = (approvals: Approvals, record: ApprovalRecord) => ({
    ...record,
    live: approvals.isWaiting(record.runId, record.callId),
  });
  const wantsAll = (c: Context) => ['true', '1'].includes(c.req.query('all') ?? '');

  const visible = (c: Context, records: ApprovalRecord[]) =>
    records.filter((record) => canSee(c.get('principal'), record.principal));

  // A page of the caller's own (an admin's: everyone's), read from the pending approvals' index:
  // what it costs does not grow with the decided approvals kept.
  app.get(`${api}/approvals`, async (c) => {
    const { limit, after } = parseApprovalPage({
      limit: c.req.query('limit'),
      cursor: c.req.query('cursor'),
    });
    const approvals = hubos.approvals;
    if (!approvals) return c.json({ approvals: [] });
    const principal = c.get('principal');
    const page = await approvals.page({
      owner: principal.admin ? undefined : principal.id,
      all: wantsAll(c),
      limit,
      ...(after ? { after } : {}),
    });
    return c.json({
      approvals: page.approvals.map((record) => view(approvals, record)),
      ...(page.next ? { nextCursor: encodeApprovalCursor(page.next) } : {}),
    });
  });

  app.get(`${api}/runs/:id/approvals`, async (c) => {
    const id = c.req.param('id');
    const approvals = hubos.approvals;
    const records = approvals ? visible(c, await approvals.list(id, { all: true })) : [];
    if (records.length === 0 && !(await hubos.runs.get(id, c.get('principal'))))
      throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
    const shown = wantsAll(c) ? records : records.filter((record) => record.status === 'pending');
    return c.json({ runId: id, approvals: shown.map((record) => view(approvals!, record)) });
  });

  app.post(`${api}/runs/:id/approvals/:callId`, async (c) => {
    const id = c.req.param('id');
    const callId = c.req.param('callId');
    const body = await readBody<DecisionBody>(c, DECISION_BODY);
    const approvals = hubos.approvals;
    if (!approvals) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
    // The live request first (its record may not be stored yet, or its write may have failed).
    const asked = await approvals.get(id, callId);
    // Another caller's approval is not there for this one: it can neither see nor decide it.
    if (asked && !canSee(c.get('principal'), asked.principal))
      throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
    // For a run of another instance (a shared bus), whether it still runs is read before deciding:
    // once decided, the run may end at once because of this very decision. A run whose instance
    // died is resumed here (it then acts on this decision), or, when it cannot resume, marked
    // interrupted: its request is cancelled, and the caller hears so at once.
    const run = approvals.isWaiting(id, callId) ? undefined : await hubos.runs.current(id);
    if (run && isFinal(run.status) && asked?.status === 'pending') {
      await approvals.abandon(id, run.error?.message ?? `the run ended (${run.status})`);
      const approval = (await approvals.get(id, callId)) ?? asked;
      return c.json(
        {
          error: {
            code: 'RUN_NOT_RUNNING',
            message: `run "${id}" is no longer running (${run.status}): its request was ${approval.status}, nothing was decided`,
          },
          approval: view(approvals, approval),
        },
        409,
      );
    }
    try {
      const decided = await approvals.decide(
        id,
        callId,
        {
          approved: body.approved,
          by: c.get('principal').id,
          ...(body.reason ? { reason: body.reason } : {}),
          ...(body.content !== undefined ? { content: body.content } : {}),
        },
        // Checked again on the record decided: one stored after the read above is not another's to decide.
        { principal: (owner) => canSee(c.get('principal'), owner) },
      );
      // It hears the decision, unless it had already ended.
      if (run && run.status !== 'running')
        return c.json(
          {
            error: {
              code: 'RUN_NOT_RUNNING',
              message: `run "${id}" is no longer running (${run.status}); the decision is recorded`,
            },
            approval: view(approvals, decided),
          },
          409,
        );
      return c.json(view(approvals, decided));
    } catch (error) {
      if (HubosError.is(error, 'APPROVAL_NOT_FOUND')) {
        const known =
          visible(c, await approvals.list(id, { all: true })).length > 0 ||
          (await hubos.runs.get(id, c.get('principal')));
        if (!known) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
      }
      // A run this instance has just resumed (its instance died) acts on the recorded decision.
      const recorded = HubosError.is(error, 'RUN_NOT_RUNNING') ? error.details.approval : undefined;
      if (recorded && run?.status === 'running') return c.json(view(approvals, recorded as ApprovalRecord));
      // A decision that came too late is answered as its code declares (409), with the approval as it stands.
      if (HubosError.is(error, 'APPROVAL_DECIDED') || HubosError.is(error, 'RUN_NOT_RUNNING')) {
        const approval = error.details.approval as ApprovalRecord;
        return c.json(
          { error: { code: error.code, message: error.message }, approval: view(approvals, approval) },
          error.status as 409,
        );
      }
      throw error;
    }
  });
}
