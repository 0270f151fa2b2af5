/**
 * A throwaway PKI for mutual-TLS tests, made in-process (node:crypto makes the
 * RSA keys, node-forge writes the X.509 certificates): no openssl CLI, so a
 * machine with only Node and npm runs it.
 *
 *   ca              a self-signed root (PEM), what servers and clients trust
 *   server          signed by ca, for `localhost`, 127.0.0.1 and ::1 (SAN),
 *                   extended key usage serverAuth
 *   client(cn)      signed by ca, subject CN=cn, clientAuth; one per cn, made
 *                   on first use
 *   foreignClient   the same, signed by another root no one trusts
 *   expiredClient   signed by ca, but its validity ended yesterday
 *
 * Certificates are valid from an hour ago (clock skew) for seven days; keys
 * are PKCS#1 PEM, which node:tls, node:https and node:http2 take as they are.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import forge from "node-forge";

export interface PemPair {
  cert: string;
  key: string;
}

export interface TestPki {
  /** The trusted root, PEM. */
  ca: string;
  /** The root of foreignClient, PEM; trusted by nobody unless a test says so. */
  foreignCa: string;
  server: PemPair;
  client(cn: string): PemPair;
  foreignClient(cn: string): PemPair;
  expiredClient(cn: string): PemPair;
}

export interface TestPkiOptions {
  /** DNS names of the server certificate; default ["localhost"]. */
  dnsNames?: readonly string[];
  /** IP addresses of the server certificate; default ["127.0.0.1", "::1"]. */
  ips?: readonly string[];
}

interface Issuer {
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
}

type Extension = Record<string, unknown> & { name: string };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function keyPair(): { publicKey: forge.pki.rsa.PublicKey; privateKey: forge.pki.rsa.PrivateKey; pem: string } {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  });
  return {
    publicKey: forge.pki.publicKeyFromPem(publicKey),
    privateKey: forge.pki.privateKeyFromPem(privateKey),
    pem: privateKey,
  };
}

/** A positive serial number of 16 random bytes, hex. */
const serial = () => `01${randomBytes(15).toString("hex")}`;

function certificate(
  cn: string,
  publicKey: forge.pki.rsa.PublicKey,
  issuer: Issuer | "self",
  extensions: Extension[],
  validity: { from: number; to: number },
  privateKey?: forge.pki.rsa.PrivateKey,
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(validity.from);
  cert.validity.notAfter = new Date(validity.to);
  cert.setSubject([{ name: "commonName", value: cn }]);
  cert.setIssuer(issuer === "self" ? cert.subject.attributes : issuer.cert.subject.attributes);
  const authority =
    issuer === "self"
      ? []
      : [{ name: "authorityKeyIdentifier", keyIdentifier: issuer.cert.generateSubjectKeyIdentifier().getBytes() }];
  cert.setExtensions([...extensions, { name: "subjectKeyIdentifier" }, ...authority]);
  const signer = issuer === "self" ? privateKey : issuer.key;
  if (signer === undefined) throw new Error("a self-signed certificate needs its private key");
  cert.sign(signer, forge.md.sha256.create());
  return cert;
}

const usual = () => ({ from: Date.now() - HOUR_MS, to: Date.now() + 7 * DAY_MS });

function rootCa(cn: string): Issuer {
  const { publicKey, privateKey } = keyPair();
  const extensions = [
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
  ];
  return { cert: certificate(cn, publicKey, "self", extensions, usual(), privateKey), key: privateKey };
}

function leaf(cn: string, issuer: Issuer, extensions: Extension[], validity = usual()): PemPair {
  const { publicKey, pem } = keyPair();
  const base = [
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
  ];
  const cert = certificate(cn, publicKey, issuer, [...base, ...extensions], validity);
  return { cert: forge.pki.certificateToPem(cert), key: pem };
}

const clientAuth: Extension = { name: "extKeyUsage", clientAuth: true };

/** Makes a root, a server certificate and, on demand, client certificates; each call makes a new PKI. */
export function createTestPki(options: TestPkiOptions = {}): TestPki {
  const root = rootCa("protoc-gen-a2a test CA");
  const foreign = rootCa("some other CA");
  const altNames = [
    ...(options.dnsNames ?? ["localhost"]).map((value) => ({ type: 2, value })),
    ...(options.ips ?? ["127.0.0.1", "::1"]).map((ip) => ({ type: 7, ip })),
  ];
  const server = leaf(options.dnsNames?.[0] ?? "localhost", root, [
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames },
  ]);
  const memo = (make: (cn: string) => PemPair) => {
    const made = new Map<string, PemPair>();
    return (cn: string) => {
      const hit = made.get(cn);
      if (hit !== undefined) return hit;
      const pair = make(cn);
      made.set(cn, pair);
      return pair;
    };
  };
  return {
    ca: forge.pki.certificateToPem(root.cert),
    foreignCa: forge.pki.certificateToPem(foreign.cert),
    server,
    client: memo((cn) => leaf(cn, root, [clientAuth])),
    foreignClient: memo((cn) => leaf(cn, foreign, [clientAuth])),
    expiredClient: memo((cn) =>
      leaf(cn, root, [clientAuth], { from: Date.now() - 8 * DAY_MS, to: Date.now() - DAY_MS }),
    ),
  };
}
