/**
 * The echo agent mounted in a Hono application served by @hono/node-server: the application has its own
 * route; the agent's fetch handler is mounted at MOUNT (app.mount strips the path).
 */
import type { Server } from "node:http";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { fetchHandler } from "@protoc-gen-a2a/runtime";
import { echoHttpCore } from "../http-side.js";
import { type AgentLog, logFetchRequests } from "../logging.js";
import { HOME_TEXT, MOUNT, announceMounted, closing, installedVersion, originOf } from "./mount.js";

export async function startInHono(port: number, log: AgentLog): Promise<() => Promise<void>> {
  let origin = "";
  const app = new Hono();
  app.get("/", (c) => c.text(HOME_TEXT));
  app.mount(MOUNT, fetchHandler(echoHttpCore({ base: () => `${origin}${MOUNT}`, log })));
  // One line per request of the whole application, as the agent logs its own.
  const logged = logFetchRequests(async (request) => app.fetch(request), log.request);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: logged, port, hostname: "127.0.0.1" }, () => resolve(s as Server));
    s.once("error", reject);
  });
  origin = originOf(server);
  announceMounted(`Hono ${installedVersion("hono")}`, origin);
  return closing(server);
}
