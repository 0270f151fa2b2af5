/**
 * A TCP proxy on 127.0.0.1 for fault tests (a database behind a network that fails):
 *
 *   pass     new connections are forwarded, and established ones forward both ways
 *   hang     new connections are accepted and never answered; established ones go on
 *   silent   as hang, and established connections stop forwarding both ways (what is sent is dropped),
 *            as when a peer vanishes without a reset
 *   cut()    drops every connection at once
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  readonly port: number;
  mode: "pass" | "hang" | "silent";
  cut(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const keep = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
  };
  const proxy = { mode: "pass" as TcpProxy["mode"] };
  const forward = (from: Socket, to: Socket) => {
    from.on("data", (chunk: Buffer) => {
      if (proxy.mode !== "silent") to.write(chunk);
    });
    from.on("close", () => to.destroy());
  };
  const server: Server = createServer((client) => {
    keep(client);
    if (proxy.mode !== "pass") return;
    const upstream = connect(target, "127.0.0.1");
    keep(upstream);
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  return Object.assign(proxy, {
    port: (server.address() as { port: number }).port,
    cut,
    close: () => {
      cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
