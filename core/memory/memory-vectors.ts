import { createHash } from 'node:crypto';
import type { Message } from '../agent/messages.ts';
import { recordTable } from '../records/typed-record-table.ts';
import { perStore } from '../store/per-store.ts';
import type { Store } from '../store/store.ts';
import type { EmbeddingModelLike } from './memory-config.ts';
import { type MemoryScope, scopeKey } from './memory-scope.ts';

/** One message's vector as kept, filed by owner (erasure), scope (its tag: what a search lists) and time. */
export interface VectorRecord {
  owner: string;
  scope: string;
  sessionId: string;
  role: 'user' | 'assistant';
  text: string;
  /** The vector as little-endian float32, base64: a quarter of its JSON numbers' size. */
  vector: string;
  at: number;
}

/** One message a semantic search found, and how close it is (cosine similarity, -1 to 1). */
export interface VectorHit {
  sessionId: string;
  role: 'user' | 'assistant';
  text: string;
  at: number;
  score: number;
}

export const VECTOR_TABLE = 'memory.vectors';
/** What of a message is embedded and kept: its first characters. */
const MAX_EMBEDDED_TEXT = 2_000;
const PAGE = 1_000;

const table = perStore((store) =>
  recordTable<VectorRecord>(store, VECTOR_TABLE, {
    owner: (record) => record.owner,
    tag: (record) => record.scope,
    time: (record) => record.at,
  }),
);

/**
 * Embeds the user's and assistant's texts of a run (`messages`) and keeps their vectors under the
 * scope: one embedding call per `maxEmbeddingsPerCall` texts, one write. Returns how many it kept.
 */
export async function keepVectors(
  store: Store,
  model: EmbeddingModelLike,
  scope: MemoryScope,
  run: { sessionId: string; runId: string; signal?: AbortSignal },
  messages: readonly Message[],
): Promise<number> {
  const said = messages.filter(
    (message): message is Extract<Message, { role: 'user' | 'assistant' }> =>
      (message.role === 'user' || message.role === 'assistant') && message.content.trim() !== '',
  );
  if (said.length === 0) return 0;
  const texts = said.map((message) => message.content.slice(0, MAX_EMBEDDED_TEXT));
  const vectors = await embed(model, texts, run.signal);
  const key = scopeKey(scope);
  const runKey = createHash('sha256').update(run.runId).digest('base64url').slice(0, 22);
  const at = Date.now();
  return table(store).insertMany(
    said.map((message, i) => ({
      key: `${key}:${runKey}:${i}`,
      value: {
        owner: scope.owner,
        scope: key,
        sessionId: run.sessionId,
        role: message.role,
        text: texts[i]!,
        vector: encode(vectors[i]!),
        at,
      },
    })),
  );
}

/**
 * The scope's kept messages closest in meaning to `query`: the newest `maxVectors` vectors are
 * read (a page of 1,000 per query) and compared in this process, so a search costs one embedding
 * call and `maxVectors / 1000` reads.
 */
export async function searchVectors(
  store: Store,
  model: EmbeddingModelLike,
  scope: MemoryScope,
  query: string,
  options: { limit: number; maxVectors: number; exceptSession?: string | undefined; signal?: AbortSignal },
): Promise<VectorHit[]> {
  const [wanted] = await embed(model, [query.slice(0, MAX_EMBEDDED_TEXT)], options.signal);
  const target = Float32Array.from(wanted!);
  const hits: VectorHit[] = [];
  const tag = scopeKey(scope);
  let after: { time: number; key: string } | undefined;
  for (let read = 0; read < options.maxVectors; ) {
    const page = await table(store).list({
      owner: scope.owner,
      tag,
      limit: Math.min(PAGE, options.maxVectors - read),
      ...(after ? { after } : {}),
    });
    read += page.entries.length;
    for (const { value } of page.entries) {
      if (value.sessionId === options.exceptSession) continue;
      const score = cosine(target, decode(value.vector));
      hits.push({ sessionId: value.sessionId, role: value.role, text: value.text, at: value.at, score });
    }
    if (!page.next) break;
    after = page.next;
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, options.limit);
}

/** Deletes at most `limit` vectors of messages said before `time` (ms), every owner's; how many went. */
export async function pruneVectors(store: Store, time: number, limit: number): Promise<number> {
  return (await table(store).deleteWhere({ before: time, limit })).length;
}

/** Deletes every vector of `owner`, a batch at a time; how many went. */
export async function eraseVectors(store: Store, owner: string): Promise<number> {
  let erased = 0;
  for (let batch = -1; batch !== 0; erased += batch)
    batch = (await table(store).deleteWhere({ owner, limit: 500 })).length;
  return erased;
}

async function embed(
  model: EmbeddingModelLike,
  texts: string[],
  signal?: AbortSignal,
): Promise<ArrayLike<number>[]> {
  const most = Math.max(1, Number(await model.maxEmbeddingsPerCall) || 96);
  const vectors: ArrayLike<number>[] = [];
  for (let start = 0; start < texts.length; start += most) {
    const values = texts.slice(start, start + most);
    const { embeddings } = await model.doEmbed({ values, ...(signal ? { abortSignal: signal } : {}) });
    if (!Array.isArray(embeddings) || embeddings.length !== values.length)
      throw new TypeError(
        `the embedding model answered ${embeddings?.length} vectors for ${values.length} texts`,
      );
    vectors.push(...embeddings);
  }
  return vectors;
}

function encode(vector: ArrayLike<number>): string {
  return Buffer.from(Float32Array.from(vector).buffer).toString('base64');
}

function decode(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 4));
}

function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -1; // a vector of another model: never a match
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
