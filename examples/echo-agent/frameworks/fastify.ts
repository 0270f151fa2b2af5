/**
 * The echo agent mounted in a Fastify 5 application: the application has its own route and JSON parsing; the
 * agent is a plugin registered under MOUNT (fastifyHandler).
 */
import Fastify from "fastify";
import { fastifyHandler } from "@protoc-gen-a2a/runtime/fastify";
import { echoHttpCore } from "../http-side.js";
import { type AgentLog, logHttpRequests } from "../logging.js";
import { HOME_TEXT, MOUNT, announceMounted, installedVersion } from "./mount.js";

export async function startInFastify(port: number, log: AgentLog): Promise<() => Promise<void>> {
  let origin = "";
  const app = Fastify();
  // One line per request of the whole application, as the agent logs its own (hijacked replies included).
  app.addHook("onRequest", (request, reply, done) =>
    logHttpRequests(() => done(), log.request)(request.raw, reply.raw),
  );
  app.get("/", async (_request, reply) => reply.type("text/plain").send(HOME_TEXT));
  await app.register(fastifyHandler(echoHttpCore({ base: () => `${origin}${MOUNT}`, log })), { prefix: MOUNT });
  origin = await app.listen({ port, host: "127.0.0.1" });
  announceMounted(`Fastify ${installedVersion("fastify")}`, origin);
  return () => app.close();
}
