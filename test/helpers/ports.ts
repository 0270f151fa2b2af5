/**
 * Two consecutive free TCP ports on 127.0.0.1 (an agent's HTTP port and the gRPC port after it), for a child
 * process that must be told its ports. They are taken below Linux's ephemeral range (32768 and up), where the
 * ports other servers and outgoing connections get at random live, and each is checked free by listening on it;
 * the child can still lose one in the moment between, which it reports as EADDRINUSE: onFreePortPair then
 * starts it again on another pair.
 */
import { createServer } from "node:net";

const FIRST = 20000;
const COUNT = 12000;

export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = FIRST + Math.floor(Math.random() * COUNT);
    const free = await Promise.all([port, port + 1].map(isFree));
    if (free.every(Boolean)) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

/** Port pairs onFreePortPair tries before it gives up. */
const TRIES = 5;

/**
 * Runs `start` on a free port pair, and again on another pair when it fails because another process took the
 * pair first (its error names EADDRINUSE), at most TRIES times.
 */
export async function onFreePortPair<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePortPair();
    try {
      return await start(port);
    } catch (e) {
      if (attempt >= TRIES || !(e instanceof Error && e.message.includes("EADDRINUSE"))) throw e;
    }
  }
}
