/**
 * The named conversions a compat rule may use ({ transform: name }); each is
 * implemented once in the runtime. The generator refuses other names.
 */
export const compatTransforms = [
  "part",
  "taskState",
  "finalFromState",
  "blocking",
  "historyLength",
  "taskName",
  "configName",
  "parentName",
  "pushConfig",
  "inlinePushConfig",
  "schemes",
  "cardInterfaces",
] as const;

export type CompatTransform = (typeof compatTransforms)[number];
