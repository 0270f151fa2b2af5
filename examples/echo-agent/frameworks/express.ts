/**
 * The echo agent mounted in an Express 5 application: the application parses JSON bodies itself
 * (express.json) and has its own route; the agent is middleware at MOUNT (expressHandler).
 */
import { createServer } from "node:http";
import express from "express";
import { expressHandler } from "@protoc-gen-a2a/runtime/express";
import { echoHttpCore } from "../http-side.js";
import { type AgentLog, logHttpRequests } from "../logging.js";
import { HOME_TEXT, MOUNT, announceMounted, closing, installedVersion, originOf } from "./mount.js";

export async function startInExpress(port: number, log: AgentLog): Promise<() => Promise<void>> {
  let origin = "";
  const app = express();
  // One line per request of the whole application, as the agent logs its own.
  app.use((req, res, next) => logHttpRequests(() => next(), log.request)(req, res));
  app.use(express.json());
  app.get("/", (_req, res) => void res.type("text/plain").send(HOME_TEXT));
  app.use(MOUNT, expressHandler(echoHttpCore({ base: () => `${origin}${MOUNT}`, log })));
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  origin = originOf(server);
  announceMounted(`Express ${installedVersion("express")}`, origin);
  return closing(server);
}
