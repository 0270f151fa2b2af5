/**
 * V8's settings for a process of the binary (bin/protoc-gen-a2a.cjs), not for a program that imports the
 * generator. The binary's loader (load-bundle.ts) sets PLUGIN_V8_FLAGS before the bundle compiles, and again
 * before it writes the code cache, which V8 stamps with the flags of the moment; a plugin run (run-node.ts) calls
 * fitToRequest once it has read the request. Imports nothing but node:v8, so that the loader can set them first.
 *
 * Rule, each measured on processes interleaved with the process before the change, on the A2A request of both
 * versions (240 KB, bench/plugin-vs-es.js) and on synthetic ones (bench/synthetic-proto.js):
 *   - no optimising compiler (--no-turbofan, which --no-opt names too). A plugin run is short: TurboFan spent
 *     some 170 ms of CPU on other threads per run, and the run took longer with it (Node 20: 390 ms without
 *     against 440 with; Node 22: 360 against 380). On synthetic requests of 1,000 and 2,000 RPCs a run took
 *     1.47 s against 1.71 and 2.33 s against 2.21, with a fifth less CPU in both;
 *   - the young generation held at its first size (--semi-space-growth-factor=1: 1 MB semi-spaces on 64 bits).
 *     V8 otherwise doubles it as objects survive, up to 16 MB, and a run, which allocates some 60 MB, then works in
 *     memory that no longer fits the CPU's caches. Held, a run scavenges some 60 times instead of 13 and takes
 *     350 ms instead of 386 (Node 20), 321 instead of 355 (Node 22); at 400 RPCs (540 KB) 720 instead of 785.
 *     Raising the first size instead (--min-semi-space-size, a start-up flag) made it slower: 454 ms with 4 MB;
 *   - a request over LARGE_REQUEST_BYTES lets the young generation grow again (V8's own factor, 2) once it is read.
 *     A large API keeps much more alive, which a small young generation copies again and again: at 1,000 RPCs
 *     (1.2 MB) holding it was even, at 2,000 (2.2 MB) it cost 5-10% more CPU, and letting it grow after the read
 *     took back most of that (3% more).
 */
import { setFlagsFromString } from "node:v8";

/** V8's flags for a process of the binary (see the rule); part of the code cache's key. */
export const PLUGIN_V8_FLAGS = "--no-turbofan --semi-space-growth-factor=1";

/** A request above this size lets the young generation grow as V8 would (see the rule). */
export const LARGE_REQUEST_BYTES = 1024 * 1024;

/** Sets PLUGIN_V8_FLAGS; before the bundle compiles, so that the flags hold for every function of it. */
export function setPluginFlags(): void {
  setFlagsFromString(PLUGIN_V8_FLAGS);
}

/** Lets the young generation grow again for a request of more than LARGE_REQUEST_BYTES. */
export function fitToRequest(requestBytes: number): void {
  if (requestBytes > LARGE_REQUEST_BYTES) setFlagsFromString("--semi-space-growth-factor=2");
}
