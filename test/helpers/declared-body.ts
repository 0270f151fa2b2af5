/**
 * A POST that declares a body larger than it sends: the status of the answer, which can only come from a
 * server that refused the body by its declared length without reading it (the rest never comes).
 */
import { request } from "node:http";

export function postDeclaringMore(
  url: string,
  headers: Readonly<Record<string, string>>,
  declaredBytes: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { ...headers, "content-length": String(declaredBytes) } });
    req.once("response", (res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.once("error", reject);
    req.write("{");
  });
}
