/**
 * Certificates for mutual-TLS client tests, made with the openssl CLI in a
 * temporary folder: a root CA, a server certificate for 127.0.0.1 and
 * localhost (SAN, serverAuth) and a client certificate (CN given, clientAuth),
 * both signed by the root, PEM. Undefined when openssl is not on the PATH, so
 * a test can skip with one line.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface OpensslPki {
  readonly ca: string;
  readonly server: { readonly cert: string; readonly key: string };
  readonly client: { readonly cert: string; readonly key: string };
}

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export function makePki(clientName: string): OpensslPki | undefined {
  if (!hasOpenssl()) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "a2a-pki-"));
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const read = (f: string) => readFileSync(join(dir, f), "utf8");
  try {
    const leaf = (name: string, subject: string, ext: string) => {
      writeFileSync(join(dir, `${name}.ext`), ext);
      ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
      ssl(
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        `${name}.pem`,
        "-days",
        "2",
        "-extfile",
        `${name}.ext`,
      );
      return { cert: read(`${name}.pem`), key: read(`${name}.key`) };
    };
    ssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=a2a test root",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    );
    const server = leaf(
      "server",
      "/CN=127.0.0.1",
      "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
    );
    const client = leaf("client", `/CN=${clientName}`, "extendedKeyUsage=clientAuth\n");
    return { ca: read("ca.pem"), server, client };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
