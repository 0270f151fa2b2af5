/**
 * The named transforms a compat entry may give (`transform: <name>`): conversions between the two
 * versions' messages that no field-by-field copy writes. This table is the one list of them; their writers,
 * one per representation, are tables over these names in emit/ (compat-proto-transforms.ts for the
 * message conversions, compat-json-transforms.ts for a2a.json), so that a name without a writer, or a
 * writer without a name, does not compile. The plan refuses a name that is not here.
 */
export const COMPAT_TRANSFORMS = {
  part: "newer Part {text | raw | url | data; media_type; filename; metadata} ↔ older Part {text | file | data}",
  taskState: "task states by name (older TASK_STATE_CANCELLED ↔ newer CANCELED)",
  finalFromState: "older `final`, written at terminal and input-required states, dropped toward the newer",
  blocking: "newer return_immediately = !older blocking",
  configurationBlocks: "a newer request without a configuration blocks: toward the older, `blocking: true`",
  historyLength: "older history_length 0 (no limit) ↔ newer unset",
  taskName: "newer id ↔ older name tasks/{id}",
  configName: "newer task_id, id ↔ older name tasks/{task_id}/pushNotificationConfigs/{id}",
  parentName: "newer task_id ↔ older parent tasks/{task_id}",
  pushConfig: "newer flat TaskPushNotificationConfig ↔ older {name, push_notification_config}",
  inlinePushConfig: "newer TaskPushNotificationConfig ↔ older PushNotificationConfig in SendMessageConfiguration",
  schemes: "newer scheme ↔ older schemes[] (the first kept, more reported)",
  cardInterfaces: "newer supported_interfaces ↔ older url, preferred_transport, additional_interfaces",
} as const;

export type CompatTransformName = keyof typeof COMPAT_TRANSFORMS;

/** The names a compat entry may give as `transform`, in the table's order. */
export const compatTransformNames = Object.keys(COMPAT_TRANSFORMS) as readonly CompatTransformName[];

export function isCompatTransform(name: string): name is CompatTransformName {
  return Object.hasOwn(COMPAT_TRANSFORMS, name);
}
