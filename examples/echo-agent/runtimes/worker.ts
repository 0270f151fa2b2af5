/**
 * The echo agent's HTTP side as a Cloudflare Worker (`npm run example -- --runtime workerd` bundles it and
 * runs it in workerd through Miniflare: workerd-launch.ts). The agent is made on the first request, its card
 * naming that request's origin, and lives as long as the isolate: tasks are in the isolate's memory, so they
 * last while it does and are not shared between isolates (README: Runtimes).
 */
import { echoFetchHandler } from "../http-side.js";
import { agentLog } from "./fetch-main.js";

let agent: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request): Promise<Response> {
    const origin = new URL(request.url).origin;
    // console.log adds the line break.
    agent ??= echoFetchHandler({ base: () => origin, log: agentLog((line) => console.log(line.replace(/\n$/, ""))) });
    return agent(request);
  },
};
