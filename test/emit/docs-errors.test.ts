/**
 * The errors page says what each binding carries from the error catalog
 * itself: an ErrorInfo only when catalog entries have a reason (as the runtime
 * does, packages/runtime/src/core/a2a-error.ts), and the catalog entry's source and decision.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import type { ResolvedApi } from "../../src/model/resolve-api.js";
import { errorsView } from "../../src/emit/docs/docs-view.js";
import { templateOptions } from "../../src/emit/docs/template-options.js";
import { readMarkdownPages } from "../helpers/samples.js";
import { repoRoot } from "../helpers/run.js";

const pages = readMarkdownPages();
const carriesErrorInfo = "an ErrorInfo in `status.details`";
const noErrorInfo = "no binding carries an ErrorInfo";
/** The errors template as the build precompiles it (src/emit/docs/docs.ts renders the precompiled form). */
const render = Handlebars.compile(readFileSync(join(repoRoot, "templates/errors.md.hbs"), "utf8"), templateOptions);

function model(reason: string | null): ResolvedApi {
  const error = {
    name: "TaskNotFoundError",
    jsonrpcCode: -32001,
    grpcStatus: "NOT_FOUND",
    httpStatus: 404,
    reason,
    domain: null,
    message: "Task not found",
  };
  const json = "application/json";
  const ct = { request: json, response: json, stream: "text/event-stream", error: json };
  const other = { ...error, name: "OtherError", jsonrpcCode: -32002, grpcStatus: "FAILED_PRECONDITION" };
  const source = { document: "S99", section: "§1 {x}" };
  return {
    protoFile: "x/a2a.proto",
    service: { name: "A2AService", fullName: "x.A2AService" },
    release: "9.9.9",
    errors: [error, { ...other, reason: reason && "OTHER" }],
    standardErrors: [],
    contentTypes: { jsonrpc: ct, rest: ct, grpc: { request: "application/grpc" } },
    overrides: [{ file: "f.yaml", id: "errors", target: "api.errors", summary: "", source, decision: "Because." }],
  } as unknown as ResolvedApi;
}

describe("errors page", () => {
  it("follows the catalog: ErrorInfo wording and columns only when an error has a reason", () => {
    const withInfo = render({ ...errorsView(model("TASK_NOT_FOUND")), sourcesPage: "s.md" });
    expect(withInfo).toContain(carriesErrorInfo);
    expect(withInfo).toContain("| ErrorInfo reason |");
    const without = render({ ...errorsView(model(null)), sourcesPage: "s.md" });
    expect(without).toContain(noErrorInfo);
    expect(without).not.toContain("| ErrorInfo reason |");
    expect(without).toContain("(`NOT_FOUND`, `FAILED_PRECONDITION`)");
    expect(without).toContain("Source: S99, §1 \\{x\\}. Decision: Because.");
  });

  it("says v0.3.0 carries no ErrorInfo and v1.0.1 does", () => {
    const v03 = pages.get("v0.3.0/a2a_errors.md")!;
    expect(v03).toContain(noErrorInfo);
    expect(v03).not.toContain(carriesErrorInfo);
    expect(v03).toContain("v0.3 defines no gRPC or HTTP mapping");
    expect(pages.get("v1.0.1/a2a_errors.md")!).toContain(carriesErrorInfo);
  });
});
