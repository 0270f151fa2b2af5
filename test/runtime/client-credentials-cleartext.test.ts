/**
 * A client made for a card sends credentials that go in its requests (an API key here) only to an interface
 * that keeps them out of clear text: an https: URL, gRPC over TLS, or a loopback host. The card's other
 * interfaces are passed over; a card with none fails with NoUsableInterfaceError naming the interface it would
 * have taken, before any request. allowCleartextCredentials lifts the rule; without credentials, or with only
 * a client certificate, it does not apply. With credentialOrigins, credentials of any kind (a certificate too)
 * go only to an interface at one of the origins listed. Only the choice is tested: no client here sends a request.
 */
import { createGrpcTransport } from "@connectrpc/connect-node";
import { NoUsableInterfaceError } from "@protoc-gen-a2a/runtime";
import { describe, expect, it } from "vitest";
import { clientForCard } from "../../generated-samples/a2a_compat.js";
import { createA2AServiceClientForCard } from "../../generated-samples/v1.0.1/a2a_a2a.js";

const security = {
  securitySchemes: {
    key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
    mtls: { mtlsSecurityScheme: {} },
  },
  securityRequirements: [{ schemes: { key: { list: [] } } }, { schemes: { mtls: { list: [] } } }],
};

const card = (...interfaces: [string, string, string?][]) => ({
  name: "a",
  supportedInterfaces: interfaces.map(([protocolBinding, url, protocolVersion = "1.0"]) => ({
    url,
    protocolBinding,
    protocolVersion,
  })),
  ...security,
});

const apiKey = { credentials: { key: "k1" } };
const grpcTransport = (baseUrl: string) => createGrpcTransport({ baseUrl });
const urlOf = (c: unknown, options: Parameters<typeof createA2AServiceClientForCard>[1]) =>
  createA2AServiceClientForCard(c, options).selected.url;

describe("with an API key", () => {
  it("passes over an http: interface on another host for the next https: one", () => {
    const c = card(["JSONRPC", "http://agent.example/a2a"], ["HTTP+JSON", "https://agent.example/rest"]);
    expect(urlOf(c, apiKey)).toBe("https://agent.example/rest");
  });

  it.each(["http://127.0.0.1:9/a2a", "http://127.8.9.10/a2a", "http://localhost:9/a2a", "http://[::1]:9/a2a"])(
    "takes an http: interface on this host (%s)",
    (url) => {
      expect(urlOf(card(["JSONRPC", url]), apiKey)).toBe(url);
    },
  );

  it.each([
    "http://agent.example/a2a",
    "http://169.254.169.254/latest",
    "http://10.0.0.1/a2a",
    "http://[::ffff:127.0.0.1]/a2a",
  ])("refuses a card whose only interface is %s, naming it", (url) => {
    expect(() => createA2AServiceClientForCard(card(["JSONRPC", url]), apiKey)).toThrow(NoUsableInterfaceError);
    expect(() => createA2AServiceClientForCard(card(["JSONRPC", url]), apiKey)).toThrow(
      `interface ${url} is not https: and not on this host`,
    );
  });

  it("refuses a bare gRPC host:port on another host, which would be plain HTTP/2", () => {
    const c = card(["GRPC", "agent.example:50051"]);
    expect(() => createA2AServiceClientForCard(c, { ...apiKey, grpcTransport })).toThrow(
      "interface agent.example:50051 is not https:",
    );
    expect(urlOf(card(["GRPC", "localhost:50051"]), { ...apiKey, grpcTransport })).toBe("localhost:50051");
  });

  it("takes the clear-text interface with allowCleartextCredentials", () => {
    const c = card(["JSONRPC", "http://agent.example/a2a"]);
    expect(urlOf(c, { ...apiKey, allowCleartextCredentials: true })).toBe("http://agent.example/a2a");
  });

  it("prefers an https: interface of the older version through the bridge to a clear-text newer one", () => {
    const c = card(["JSONRPC", "http://agent.example/v1"], ["JSONRPC", "https://agent.example/v03", "0.3"]);
    const { selected, bridged } = clientForCard(c, apiKey);
    expect({ url: selected.url, bridged }).toEqual({ url: "https://agent.example/v03", bridged: true });
  });

  it("names the clear-text interface when no version has a secure one", () => {
    const c = card(["JSONRPC", "http://agent.example/v03", "0.3"]);
    expect(() => clientForCard(c, apiKey)).toThrow("interface http://agent.example/v03 is not https:");
  });
});

describe("without credentials in the requests", () => {
  it("takes an http: interface on another host when no credentials are given", () => {
    expect(urlOf(card(["JSONRPC", "http://agent.example/a2a"]), {})).toBe("http://agent.example/a2a");
  });

  it("takes it with a client certificate only: the certificate goes on a TLS connection or not at all", () => {
    const tls = { cert: "-----BEGIN CERTIFICATE-----", key: "-----BEGIN PRIVATE KEY-----" };
    const c = card(["JSONRPC", "http://agent.example/a2a"]);
    expect(urlOf(c, { credentials: { mtls: tls }, fetch: globalThis.fetch })).toBe("http://agent.example/a2a");
  });
});

describe("with credentialOrigins", () => {
  const only = (...origins: string[]) => ({ ...apiKey, credentialOrigins: origins });

  it("passes over an interface at another origin for the next at one of them", () => {
    const c = card(["JSONRPC", "https://elsewhere.example/a2a"], ["HTTP+JSON", "https://agent.example:443/rest"]);
    expect(urlOf(c, apiKey)).toBe("https://elsewhere.example/a2a");
    expect(urlOf(c, only("https://agent.example"))).toBe("https://agent.example:443/rest");
    expect(urlOf(c, only("https://Agent.Example:443/"))).toBe("https://agent.example:443/rest");
  });

  it.each([
    ["https://agent.example.evil.example/a2a", "https://agent.example"],
    ["https://agent.example:8443/a2a", "https://agent.example"],
    ["http://127.0.0.1:9/a2a", "https://127.0.0.1:9"],
    ["https://user@elsewhere.example/a2a", "https://agent.example"],
  ])("refuses a card whose only interface is %s with %s, naming it", (url, origin) => {
    expect(() => createA2AServiceClientForCard(card(["JSONRPC", url]), only(origin))).toThrow(
      `interface ${url} is not at one of credentialOrigins (${origin}), where the credentials may go`,
    );
  });

  it("matches a bare gRPC host:port by host and port, and a client certificate is held to the list too", () => {
    const tls = { cert: "-----BEGIN CERTIFICATE-----", key: "-----BEGIN PRIVATE KEY-----" };
    const options = { credentials: { mtls: tls }, grpcTransport, credentialOrigins: ["https://agent.example"] };
    expect(urlOf(card(["GRPC", "agent.example:443"]), options)).toBe("agent.example:443");
    expect(() => createA2AServiceClientForCard(card(["GRPC", "agent.example:50051"]), options)).toThrow(
      "is not at one of credentialOrigins",
    );
  });

  it("takes a bare gRPC host:port with the scheme the client uses for it: http without a certificate", () => {
    const c = card(["GRPC", "agent.example:8443"]);
    const options = { ...apiKey, grpcTransport, allowCleartextCredentials: true };
    expect(() =>
      createA2AServiceClientForCard(c, { ...options, credentialOrigins: ["https://agent.example:8443"] }),
    ).toThrow("is not at one of credentialOrigins");
    expect(urlOf(c, { ...options, credentialOrigins: ["http://agent.example:8443"] })).toBe("agent.example:8443");
  });

  it("names an empty list, where nothing may go", () => {
    expect(() => createA2AServiceClientForCard(card(["JSONRPC", "https://agent.example/a2a"]), only())).toThrow(
      "is not at one of credentialOrigins (none listed)",
    );
  });

  it("does not apply when no credentials are sent", () => {
    const c = card(["JSONRPC", "https://elsewhere.example/a2a"]);
    expect(urlOf(c, { credentialOrigins: ["https://agent.example"] })).toBe("https://elsewhere.example/a2a");
  });

  it.each([
    "https://agent.example/a2a",
    "agent.example",
    "ftp://agent.example",
    "https://agent.example?x",
    "https://user:pw@agent.example",
    "https://*.example",
  ])("refuses the entry %s, naming it", (entry) => {
    const c = card(["JSONRPC", "https://agent.example/a2a"]);
    expect(() => createA2AServiceClientForCard(c, only(entry))).toThrow(
      `credentialOrigins: ${JSON.stringify(entry)} is no origin`,
    );
  });
});
