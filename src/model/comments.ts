/**
 * The leading comment of a descriptor as plain text, for descriptions in the generated documents.
 *
 * Rule: the comment lines as the proto writes them, line breaks as LF, one leading space removed from each,
 * surrounding blank lines dropped; lines that address tools rather than readers (`protolint:…`,
 * `buf:lint:…`, `--8<--` snippet markers) are left out. A descriptor without source info or comment has
 * none (undefined).
 *
 * Each file's source info is indexed once per reader (one per run of the model stage), by the descriptor
 * proto each location belongs to (its path:
 * messages 4, fields 2, nested messages 3, enums 4 or 5, oneofs 8, values 2, services 6, methods 2, as
 * descriptor.proto numbers them), so a lookup costs the same at 20 RPCs or 2,000. (protoplugin's
 * getComments scans every location per call, which made the model quadratic in the API's size.)
 */
import type { AnyDesc, DescFile } from "@bufbuild/protobuf";
import type { DescriptorProto, EnumDescriptorProto, FileDescriptorProto } from "@bufbuild/protobuf/wkt";

const toolLine = /^\s*(protolint:|buf:lint:|--8<--)/;

/** The comment of a descriptor, as the rule above gives it. */
export type CommentReader = (desc: Exclude<AnyDesc, DescFile>) => string | undefined;

/** A reader of comments that indexes each file it is asked about once, and keeps the indexes as long as it lives. */
export function commentReader(): CommentReader {
  /** Per file: each descriptor proto → the leading comment of its location. */
  const indexes = new Map<FileDescriptorProto, ReadonlyMap<object, string>>();
  return (desc) => {
    const file = fileOf(desc);
    let index = indexes.get(file);
    if (index === undefined) {
      index = indexOf(file);
      indexes.set(file, index);
    }
    return commentText(index.get(desc.proto));
  };
}

/** The file a descriptor is declared in. */
function fileOf(desc: Exclude<AnyDesc, DescFile>): FileDescriptorProto {
  switch (desc.kind) {
    case "field":
    case "oneof":
    case "enum_value":
    case "rpc":
      return desc.parent.file.proto;
    default:
      return desc.file.proto;
  }
}

function commentText(leading: string | undefined): string | undefined {
  if (leading === undefined) return undefined;
  const text = leading
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.replace(/^ /, "").trimEnd())
    .filter((l) => !toolLine.test(l))
    .join("\n")
    .trim();
  return text === "" ? undefined : text;
}

function indexOf(file: FileDescriptorProto): ReadonlyMap<object, string> {
  const byPath = new Map<string, object>();
  const add = (path: readonly number[], proto: object): void => {
    byPath.set(path.join(","), proto);
  };
  const enumAt = (path: readonly number[], e: EnumDescriptorProto): void => {
    add(path, e);
    for (const [i, v] of e.value.entries()) add([...path, 2, i], v);
  };
  const messageAt = (path: readonly number[], m: DescriptorProto): void => {
    add(path, m);
    for (const [i, f] of m.field.entries()) add([...path, 2, i], f);
    for (const [i, n] of m.nestedType.entries()) messageAt([...path, 3, i], n);
    for (const [i, e] of m.enumType.entries()) enumAt([...path, 4, i], e);
    for (const [i, o] of m.oneofDecl.entries()) add([...path, 8, i], o);
  };
  for (const [i, m] of file.messageType.entries()) messageAt([4, i], m);
  for (const [i, e] of file.enumType.entries()) enumAt([5, i], e);
  for (const [i, svc] of file.service.entries()) {
    add([6, i], svc);
    for (const [j, m] of svc.method.entries()) add([6, i, 2, j], m);
  }
  const comments = new Map<object, string>();
  for (const loc of file.sourceCodeInfo?.location ?? []) {
    const proto = byPath.get(loc.path.join(","));
    if (proto !== undefined && loc.leadingComments !== "" && !comments.has(proto))
      comments.set(proto, loc.leadingComments);
  }
  return comments;
}
