/**
 * How every service's Node process starts, wherever it runs: the image's CMD (deploy/Dockerfile,
 * checked by test/deploy/compose.test.ts), `pnpm stack`, the chaos suite and the benchmarks.
 * Source maps for stack traces, and a heap bounded for the containers' 256-384 MiB limits: an old
 * generation of at most 144 MiB and young semi-spaces of 4 MiB keep the api at 155 MiB through the
 * accept benchmark (340 MiB with V8's defaults, which grow the heap with throughput). An old
 * generation of 88 MiB kept it 3 MiB lower but had the api and the gateway collecting garbage for
 * 15-25 % of their CPU on the status path: these limits take a sixth off the CPU per message of the
 * four status-path services. Semi-spaces of 16 MiB would take a third, at 30 MiB more per service
 * (docs/performance.md).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--enable-source-maps',
  '--max-old-space-size=144',
  '--max-semi-space-size=4',
];
