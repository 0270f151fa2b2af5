/**
 * The named transforms a compat entry may give (`transform: <name>`): conversions between the two
 * versions' messages that no field-by-field copy writes. This table is the one definition of each: what it
 * means, and per direction what it reads and writes, which other pairs it converts, which messages it
 * builds, and whether it reports losses or refuses input. The conversion IR (conversion-ir.ts) checks these
 * against the descriptors and derives from them what each conversion function takes; the writers, one per
 * representation, are tables over these names in emit/ (compat-proto-transforms.ts for the message
 * conversions, compat-json-transforms.ts for a2a.json), so that a name without a writer, or a writer without
 * a name, does not compile. The plan refuses a name that is not here.
 *
 * Member names are the protos' (fields or oneofs), of the source message for `reads` and of the target for
 * `writes`; message names are short names in the source package (`converts`) or the target's (`builds`).
 */

/** What a transform does in one direction. */
export interface TransformSide {
  /** Source members it reads. */
  readonly reads: readonly string[];
  /** Target members it gives values to. */
  readonly writes: readonly string[];
  /** Source-package messages it converts by their pairs' functions. */
  readonly converts?: readonly string[];
  /** Target-package messages it writes literals or types of, each with the members it gives. */
  readonly builds?: Readonly<Record<string, readonly string[]>>;
  /** It reports losses (the function takes the losses and its path). */
  readonly loses?: true;
  /** It refuses input or reads its path (the function takes its path). */
  readonly refuses?: true;
  /** Source and target members, enum fields both, whose values it converts by name. */
  readonly enums?: readonly string[];
  /** Enum values (by name, without the prefix) it reads, by the dotted path of their field from the source. */
  readonly enumValues?: Readonly<Record<string, readonly string[]>>;
  /** Lossy fields of other newer messages (`Message.field`) whose plan reason it reports. */
  readonly planLosses?: readonly string[];
}

interface TransformDefinition {
  readonly meaning: string;
  readonly toOlder: TransformSide;
  readonly toNewer: TransformSide;
}

const NONE: TransformSide = { reads: [], writes: [] };
const AUTH = ["AuthenticationInfo"];
const PUSH_FIELDS = ["id", "url", "token", "authentication"];

export const COMPAT_TRANSFORMS = {
  part: {
    meaning: "newer Part {text | raw | url | data; media_type; filename; metadata} ↔ older Part {text | file | data}",
    toOlder: {
      reads: ["content", "media_type"],
      writes: ["part"],
      builds: { Part: [], FilePart: ["file", "mime_type"], DataPart: ["data"] },
      loses: true,
    },
    toNewer: { reads: ["part"], writes: ["content", "media_type"], builds: { Part: [] }, refuses: true },
  },
  taskState: {
    meaning: "task states by name (older TASK_STATE_CANCELLED ↔ newer CANCELED)",
    toOlder: { reads: ["state"], writes: ["state"], enums: ["state"] },
    toNewer: { reads: ["state"], writes: ["state"], enums: ["state"] },
  },
  finalFromState: {
    meaning: "older `final`, written at terminal and input-required states, dropped toward the newer",
    toOlder: {
      reads: ["status"],
      writes: ["status", "final"],
      converts: ["TaskStatus"],
      enumValues: { "status.state": ["COMPLETED", "CANCELED", "FAILED", "REJECTED", "INPUT_REQUIRED"] },
    },
    toNewer: NONE,
  },
  blocking: {
    meaning: "newer return_immediately = !older blocking",
    toOlder: { reads: ["return_immediately"], writes: ["blocking"] },
    toNewer: { reads: ["blocking"], writes: ["return_immediately"] },
  },
  configurationBlocks: {
    meaning: "a newer request without a configuration blocks: toward the older, `blocking: true`",
    toOlder: {
      reads: ["configuration"],
      writes: ["configuration"],
      converts: ["SendMessageConfiguration"],
      builds: { SendMessageConfiguration: ["blocking"] },
    },
    toNewer: { reads: ["configuration"], writes: ["configuration"], converts: ["SendMessageConfiguration"] },
  },
  historyLength: {
    meaning: "older history_length 0 (no limit) ↔ newer unset",
    toOlder: { reads: ["history_length"], writes: ["history_length"], loses: true },
    toNewer: { reads: ["history_length"], writes: ["history_length"] },
  },
  taskName: {
    meaning: "newer id ↔ older name tasks/{id}",
    toOlder: { reads: ["id"], writes: ["name"], loses: true },
    toNewer: { reads: ["name"], writes: ["id"], refuses: true },
  },
  configName: {
    meaning: "newer task_id, id ↔ older name tasks/{task_id}/pushNotificationConfigs/{id}",
    toOlder: { reads: ["task_id", "id"], writes: ["name"], loses: true },
    toNewer: { reads: ["name"], writes: ["task_id", "id"], refuses: true },
  },
  parentName: {
    meaning: "newer task_id ↔ older parent tasks/{task_id}",
    toOlder: { reads: ["task_id"], writes: ["parent"], loses: true },
    toNewer: { reads: ["parent"], writes: ["task_id"], refuses: true },
  },
  pushConfig: {
    meaning: "newer flat TaskPushNotificationConfig ↔ older {name, push_notification_config}",
    toOlder: {
      reads: ["task_id", ...PUSH_FIELDS],
      writes: ["name", "push_notification_config"],
      converts: AUTH,
      builds: { PushNotificationConfig: PUSH_FIELDS },
      loses: true,
    },
    toNewer: { reads: ["name", "push_notification_config"], writes: ["task_id", ...PUSH_FIELDS], converts: AUTH },
  },
  inlinePushConfig: {
    meaning: "newer TaskPushNotificationConfig ↔ older PushNotificationConfig in SendMessageConfiguration",
    toOlder: {
      reads: ["task_push_notification_config"],
      writes: ["push_notification"],
      converts: AUTH,
      builds: { PushNotificationConfig: PUSH_FIELDS },
      loses: true,
      planLosses: ["TaskPushNotificationConfig.tenant"],
    },
    toNewer: {
      reads: ["push_notification"],
      writes: ["task_push_notification_config"],
      converts: AUTH,
      builds: { TaskPushNotificationConfig: PUSH_FIELDS },
    },
  },
  schemes: {
    meaning: "newer scheme ↔ older schemes[] (the first kept, more reported)",
    toOlder: { reads: ["scheme"], writes: ["schemes"] },
    toNewer: { reads: ["schemes"], writes: ["scheme"], loses: true },
  },
  cardInterfaces: {
    meaning: "newer supported_interfaces ↔ older url, preferred_transport, additional_interfaces",
    toOlder: {
      reads: ["supported_interfaces", "capabilities"],
      writes: [
        "url",
        "preferred_transport",
        "protocol_version",
        "additional_interfaces",
        "supports_authenticated_extended_card",
      ],
      converts: ["AgentInterface"],
      loses: true,
    },
    toNewer: {
      reads: [
        "protocol_version",
        "url",
        "preferred_transport",
        "additional_interfaces",
        "supports_authenticated_extended_card",
      ],
      writes: ["supported_interfaces", "capabilities"],
      builds: { AgentInterface: ["url", "protocol_binding", "protocol_version"], AgentCapabilities: [] },
    },
  },
} as const satisfies Readonly<Record<string, TransformDefinition>>;

export type CompatTransformName = keyof typeof COMPAT_TRANSFORMS;

/** The names a compat entry may give as `transform`, in the table's order. */
export const compatTransformNames = Object.keys(COMPAT_TRANSFORMS) as readonly CompatTransformName[];

export function isCompatTransform(name: string): name is CompatTransformName {
  return Object.hasOwn(COMPAT_TRANSFORMS, name);
}

/** What transform `name` does in direction `dir`. */
export function transformSide(name: CompatTransformName, dir: "toOlder" | "toNewer"): TransformSide {
  const t: TransformDefinition = COMPAT_TRANSFORMS[name];
  return t[dir];
}
