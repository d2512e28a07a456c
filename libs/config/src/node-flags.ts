/**
 * How every service's Node process starts, wherever it runs: the image's CMD (deploy/Dockerfile,
 * checked by test/deploy/compose.test.ts), `pnpm stack`, the chaos suite and the benchmarks.
 * Source maps for stack traces, and a heap bounded for the containers' 256-384 MiB limits: an old
 * generation of at most 144 MiB and young semi-spaces of 16 MiB (at most 192 MiB of heap, under the
 * queue's 256 MiB with Node's own memory). V8's defaults grow the heap with throughput (340 MiB for
 * the api through the accept benchmark). A tighter old generation (88 MiB) kept the services near
 * 150 MiB but had the api and the gateway collecting garbage for 15-25 % of their CPU on the status
 * path, and more than half of it with 16 MiB semi-spaces; these limits take a quarter off the CPU
 * per message of the four status-path services at 155-190 MiB peak each (docs/performance.md).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--enable-source-maps',
  '--max-old-space-size=144',
  '--max-semi-space-size=16',
];
