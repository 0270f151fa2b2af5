// Child process of figure 4 (server-throughput.js): the load generator. Runs
// autocannon's API in its own process (so it never shares the event loop with
// the orchestrator or the server), first a warm-up run whose figures are
// dropped, then the measured run. Reads one JSON argument
//   { url, method, headers, body, connections, warmupS, durationS, serverPid }
// and prints one JSON line on stdout:
//   { rps, ok, non2xx, errors, timeouts, durationS, latencyP50, latencyP99, loadCpu, serverCpu, otherCpu, stealCpu }
// rps counts 2xx answers only, over the measured run's real duration. loadCpu
// and serverCpu are the CPU time of this process and of the server process
// (from /proc, Linux only, else null) during the measured run, as a fraction
// of one core; otherCpu is what the rest of the machine used meanwhile (from
// /proc/stat; softirq work for loopback traffic counts there too) and
// stealCpu the hypervisor's steal time. Asserts nothing.
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { machineCpuSeconds } from "./stats.js";

/** utime + stime of a process in seconds, or null where /proc is unavailable. */
function procCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields after ")": state(3) … utime(14) stime(15), i.e. indexes 11 and 12 here. USER_HZ is 100 on Linux.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

const cfg = JSON.parse(process.argv[2]);
const base = {
  url: cfg.url,
  method: cfg.method,
  headers: cfg.headers,
  body: cfg.body,
  connections: cfg.connections,
  pipelining: 1,
  timeout: 10,
};

if (cfg.warmupS > 0) await autocannon({ ...base, duration: cfg.warmupS });

const machine0 = machineCpuSeconds();
const serverCpu0 = procCpuSeconds(cfg.serverPid);
const loadCpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const r = await autocannon({ ...base, duration: cfg.durationS });
const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
const loadCpu1 = process.cpuUsage(loadCpu0);
const serverCpu1 = procCpuSeconds(cfg.serverPid);
const machine1 = machineCpuSeconds();

const ok = r["2xx"];
const loadCpu = (loadCpu1.user + loadCpu1.system) / 1e6 / wallS;
const serverCpu = serverCpu0 === null || serverCpu1 === null ? null : (serverCpu1 - serverCpu0) / wallS;
const machine =
  machine0 && machine1
    ? { busy: (machine1.busy - machine0.busy) / wallS, steal: (machine1.steal - machine0.steal) / wallS }
    : null;
process.stdout.write(
  JSON.stringify({
    rps: ok / r.duration,
    ok,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    durationS: r.duration,
    latencyP50: r.latency.p50,
    latencyP99: r.latency.p99,
    loadCpu,
    serverCpu,
    // CPU the rest of the machine used meanwhile (other processes, kernel threads), and time stolen by the hypervisor.
    otherCpu: machine && serverCpu !== null ? Math.max(0, machine.busy - serverCpu - loadCpu) : null,
    stealCpu: machine ? machine.steal : null,
  }) + "\n",
);
