// Baseline for `hubos run`: the least a one-turn CLI does by hand. It reads the prompt from argv,
// streams one turn of a canned model (an async generator, like a model client's), prints it, exits.
const prompt = process.argv.slice(2).join(' ');
if (!prompt) {
  process.stderr.write('usage: run-baseline.mjs <message>\n');
  process.exit(2);
}

async function* model(messages) {
  const last = messages.at(-1).content;
  yield { type: 'text-delta', delta: `You said ${JSON.stringify(last)}; I am a canned model.` };
  yield { type: 'finish', finishReason: 'stop' };
}

const messages = [{ role: 'user', content: prompt }];
for await (const chunk of model(messages)) {
  if (chunk.type === 'text-delta') process.stdout.write(chunk.delta);
}
process.stdout.write('\n');
