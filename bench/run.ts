/** `npm run bench`: each benchmark prints its ratio against a baseline measured in the same run. */
await import('./cli-start.bench.ts');
await import('./cold-start.bench.ts');
await import('./tool-validation.bench.ts');
await import('./hook-dispatch.bench.ts');
await import('./agent-loop.bench.ts');
await import('./subagent.bench.ts');
await import('./filesystem.bench.ts');
await import('./filesystem-search.bench.ts');
await import('./bash.bench.ts');
await import('./server.bench.ts');
await import('./cosmos.bench.ts');
await import('./stars.bench.ts');
await import('./workflow.bench.ts');
await import('./mcp.bench.ts');
await import('./store-write.bench.ts');
await import('./queue-latency.bench.ts');
await import('./scale-out.bench.ts');
