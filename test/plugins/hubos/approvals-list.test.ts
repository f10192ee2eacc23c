// GET /api/approvals: the caller's pending approvals (an admin's: everyone's), a page at a time,
// read from the pending rows whatever number of decided ones is kept; a bad page is a 400.
import { afterEach, describe, expect, it } from 'vitest';
import { approvalAt } from '../../store/approvals-contract.ts';
import { type Served, serveHelper } from './helpers.ts';

const ALICE = 'a'.repeat(32);
const BOB = 'b'.repeat(32);
const ROOT = 'c'.repeat(32);

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(): Promise<Served> {
  const served = await serveHelper([], {
    apiKeys: [
      { key: ALICE, id: 'alice' },
      { key: BOB, id: 'bob' },
      { key: ROOT, id: 'root', admin: true },
    ],
  });
  closers.push(served.close);
  const table = await served.kernel.approvals.table();
  const base = Date.now() - 60_000;
  for (let i = 0; i < 120; i++)
    await table.put(
      approvalAt(base + i, `run-d${i}`, 'c1', {
        status: 'denied',
        decidedAt: new Date(base + i).toISOString(),
      }),
    );
  for (let i = 0; i < 5; i++) await table.put(approvalAt(base + 200 + i, `run-a${i}`, 'c1'));
  for (let i = 0; i < 3; i++)
    await table.put(approvalAt(base + 300 + i, `run-b${i}`, 'c1', { principal: 'bob' }));
  return served;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
async function get(served: Served, path: string, key: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${served.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.json() };
}

describe('GET /api/approvals', () => {
  it("pages through the caller's pending approvals, oldest first, and an admin's through everyone's", async () => {
    const served = await serve();
    const seen: string[] = [];
    let path = '/api/approvals?limit=2';
    for (let pages = 0; pages < 10; pages++) {
      const { status, body } = await get(served, path, ALICE);
      expect(status).toBe(200);
      seen.push(...body.approvals.map((approval: { runId: string; live: boolean }) => approval.runId));
      for (const approval of body.approvals)
        expect(approval).toMatchObject({ status: 'pending', live: false });
      if (!body.nextCursor) break;
      path = `/api/approvals?limit=2&cursor=${body.nextCursor}`;
    }
    expect(seen).toEqual(['run-a0', 'run-a1', 'run-a2', 'run-a3', 'run-a4']);
    expect((await get(served, '/api/approvals', BOB)).body.approvals).toHaveLength(3);
    const everyone = await get(served, '/api/approvals', ROOT);
    expect(everyone.body.approvals).toHaveLength(8);
    expect(everyone.body.nextCursor).toBeUndefined();
    // ?all=true: the decided ones too, still a page at a time.
    const all = await get(served, '/api/approvals?all=true&limit=200', ALICE);
    expect(all.body.approvals).toHaveLength(125);
  });

  it('answers a limit or cursor that makes no sense with 400 APPROVAL_QUERY_INVALID, naming it', async () => {
    const served = await serve();
    const forged = Buffer.from(JSON.stringify(['a1', 'soon', 'run', 'c1'])).toString('base64url');
    for (const query of [
      'limit=0',
      'limit=201',
      'limit=abc',
      'limit=-1',
      'cursor=%%%',
      'cursor=abc',
      `cursor=${forged}`,
    ]) {
      const { status, body } = await get(served, `/api/approvals?${query}`, ALICE);
      expect(status, query).toBe(400);
      expect(body.error.code, query).toBe('APPROVAL_QUERY_INVALID');
      expect(body.error.message, query).toMatch(/^cannot list approvals: (limit|cursor) /);
    }
  });
});
