/**
 * The client certificate of a mutual-TLS connection, as the HTTP adapters
 * and the gRPC routes hand it to a call (HandlerContext.clientCertificate).
 *
 *   when    only a certificate the TLS layer verified against the server's
 *           certificate authorities (node: `socket.authorized`); a server
 *           that does not ask for one (`requestCert`) or a connection
 *           without TLS has none
 *   fields  the subject's and issuer's attributes (CN, O, …; repeated
 *           attributes joined with ", "), the SHA-256 fingerprint as node
 *           prints it (AA:BB:…), the serial number and validity dates
 */
import type { TLSSocket } from "node:tls";

export interface ClientCertificate {
  readonly subject: Readonly<Record<string, string>>;
  readonly issuer: Readonly<Record<string, string>>;
  readonly fingerprint256: string;
  readonly serialNumber: string;
  readonly validFrom: string;
  readonly validTo: string;
}

/** The verified client certificate of a node TLS socket, else undefined (no TLS, none sent, not verified). */
export function verifiedClientCertificate(socket: unknown): ClientCertificate | undefined {
  const tls = socket as Partial<TLSSocket> | undefined;
  if (tls?.authorized !== true || typeof tls.getPeerCertificate !== "function") return undefined;
  const cert = tls.getPeerCertificate();
  if (!cert?.fingerprint256) return undefined;
  return {
    subject: attributes(cert.subject),
    issuer: attributes(cert.issuer),
    fingerprint256: cert.fingerprint256,
    serialNumber: cert.serialNumber,
    validFrom: cert.valid_from,
    validTo: cert.valid_to,
  };
}

function attributes(names: object | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(names ?? {})) {
    if (typeof v === "string") out[k] = v;
    else if (Array.isArray(v)) out[k] = v.join(", ");
  }
  return out;
}
