/**
 * Stars message routing: one member broadcasts to 100 others, again and again. Prints messages
 * delivered per second (one broadcast delivers 100), with a baseline in the same run: pushing the
 * same message into 100 plain arrays. Target: at least 100,000 delivered per second.
 */
import type { LanguageModel, ModelChunk } from '../core/index.ts';
import cosmos from '../plugins/cosmos/index.ts';
import { RoleLeader, RoleWorker, Stars } from '../plugins/stars/index.ts';
import { bootKernel } from '../testing/index.ts';

const MEMBERS = 101;
const BROADCASTS = 5_000;
const model: LanguageModel = {
  provider: 'bench',
  modelId: 'idle',
  async *stream(): AsyncGenerator<ModelChunk> {
    yield { type: 'finish', finishReason: 'stop' };
  },
};

const kernel = await bootKernel({
  plugins: [cosmos({ maxAgents: MEMBERS })],
  config: { agents: { member: { description: 'A member', model } } },
});
const space = kernel.service('cosmos');
const team = new Stars(space, 'bench', { store: kernel.store });
for (let i = 0; i < MEMBERS; i++) {
  await space.create({ agentId: `m-${i}`, templateId: 'member' });
  team.join(`m-${i}`, i === 0 ? RoleLeader : RoleWorker);
}

// Baseline: the same deliveries into plain arrays.
const inboxes = Array.from({ length: MEMBERS - 1 }, () => [] as unknown[]);
let started = performance.now();
for (let b = 0; b < BROADCASTS; b++) {
  const message = { from: 'm-0', content: `update ${b}` };
  for (const inbox of inboxes) inbox.push(message);
  if (b % 100 === 99) for (const inbox of inboxes) inbox.splice(0);
}
const baseSeconds = (performance.now() - started) / 1000;

started = performance.now();
for (let b = 0; b < BROADCASTS; b++) {
  team.broadcast('m-0', `update ${b}`);
  // Members read their inboxes now and then, as they would during runs.
  if (b % 100 === 99) for (let i = 1; i < MEMBERS; i++) team.takeInbox(`m-${i}`);
}
const seconds = (performance.now() - started) / 1000;
await team.flush();
const delivered = BROADCASTS * (MEMBERS - 1);

console.log(
  `stars: broadcast to ${MEMBERS - 1} members x ${BROADCASTS}: ${Math.round(delivered / seconds).toLocaleString('en')} messages delivered/s ` +
    `(target >= 100,000/s); ${(seconds / baseSeconds).toFixed(2)}x the time of pushing into plain arrays`,
);
await kernel.close();
