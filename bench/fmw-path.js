// Converts a generated route (segments, variables, verb) into a find-my-way
// path, so both routers are given the same route set. Measures nothing.
//
//   /tasks/{task_id=*}/pushNotificationConfigs/{id=*}  ->  /tasks/:task_id/pushNotificationConfigs/:id
//   /message:send                                       ->  /message::send       ("::" is a literal ":")
//   /{tenant}/tasks/{id=*}:cancel                       ->  /:tenant/tasks/:id([^/:]+)::cancel
//
// find-my-way ends a parameter name only at "/", "-", "." or "(", so a verb
// after a variable needs the regex form `:id([^/:]+)::cancel`; without it the
// parameter would be named "id::cancel" and swallow the verb.

const paramName = (field) => field.replace(/[^A-Za-z0-9_]/g, "_");

export function toFindMyWayPath(route) {
  const out = route.segments.map((seg, k) => {
    if (seg === "**") return "*";
    if (seg === "*") return `:_${k}`; // anonymous, renamed below when a variable covers it
    return seg.replaceAll(":", "::");
  });
  for (const v of route.variables) {
    const single = v.end - v.start === 1;
    for (let k = v.start; k < v.end; k++) {
      if (route.segments[k] === "*") out[k] = single ? `:${paramName(v.field)}` : `:${paramName(v.field)}_${k}`;
    }
  }
  if (route.verb !== null) {
    const last = out.length - 1;
    if (out[last] === "*")
      throw new Error(`${route.method} ${route.template}: a verb after "**" has no find-my-way form`);
    out[last] = out[last].startsWith(":") ? `${out[last]}([^/:]+)::${route.verb}` : `${out[last]}::${route.verb}`;
  }
  return "/" + out.join("/");
}
