/**
 * How every service's Node process starts, wherever it runs: the image's CMD (deploy/Dockerfile,
 * checked by test/deploy/compose.test.ts), `pnpm stack`, the chaos suite and the benchmarks.
 * Source maps for stack traces, and a heap sized for the containers' 256-384 MiB limits: an old
 * generation of 88 MiB and young semi-spaces of 4 MiB keep a service under 150 MiB resident through
 * the accept benchmark (340 MiB with V8's defaults, which grow the heap with throughput), at the
 * same accepted sends per second within the bench's noise (docs/performance.md).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--enable-source-maps',
  '--max-old-space-size=88',
  '--max-semi-space-size=4',
];
