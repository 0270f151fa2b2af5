// Small helpers shared by the benchmarks: median, a monotonic clock, the
// machine's CPU counters and number formatting. Measures nothing by itself.
import { readFileSync } from "node:fs";

/**
 * The whole machine's CPU time so far in seconds, all cores added, from /proc/stat: busy (user, nice, system,
 * irq, softirq; softirq work for loopback traffic counts there), steal (the hypervisor's) and total (every
 * field). Null where /proc/stat is missing (not Linux).
 */
export function machineCpuSeconds() {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal … (USER_HZ is 100 on Linux)
    const [user, nice, system, , , irq, softirq, steal] = f;
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: (user + nice + system + irq + softirq) / 100, steal: steal / 100, total: total / 100 };
  } catch {
    return null;
  }
}

/** Monotonic time in milliseconds (fractional). */
export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function fmtMs(ms) {
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(3)} ms`;
}

export function fmtOps(ops) {
  if (ops >= 1e6) return `${(ops / 1e6).toFixed(2)}M op/s`;
  if (ops >= 1e3) return `${(ops / 1e3).toFixed(1)}k op/s`;
  return `${ops.toFixed(0)} op/s`;
}

export function fmtRps(rps) {
  if (rps >= 1e3) return `${(rps / 1e3).toFixed(1)}k req/s`;
  return `${rps.toFixed(0)} req/s`;
}

export const fmtRatio = (r) => `${r.toFixed(2)}x`;

/** True when the calling module is the script node was started with. */
export function isMain(importMetaUrl) {
  return process.argv[1] !== undefined && new URL(importMetaUrl).pathname === process.argv[1];
}
