// The command-wrapper recipe (docs/command-wrapper.md) for assistants that run shell
// strings through a template with {command} and {cwd}, such as nanobot's
// `tools.exec.commandWrapper`. The command travels in a QUOTED here-document on stdin:
// the outer shell expands nothing in it ($, `, \ and quotes are literal), and `exec`
// means the outer shell runs nothing after it — a command that contains the delimiter
// line is cut there, and only the approved first part runs.

/** The delimiter: unusual enough not to appear by accident (it being present is safe anyway). */
export const WRAPPER_DELIMITER = 'AIRLOCK_COMMAND_7f3a9c';

/** The template to paste into the assistant's config. `airlock` must be on PATH. */
export function commandWrapperTemplate(airlock = 'airlock', extra = ''): string {
  return `exec ${airlock} exec${extra ? ' ' + extra : ''} --stdin-command <<'${WRAPPER_DELIMITER}'\n{command}\n${WRAPPER_DELIMITER}`;
}

/** What such an assistant does with the template: plain string replacement, no escaping. */
export function applyTemplate(template: string, command: string, cwd: string): string {
  return template.split('{command}').join(command).split('{cwd}').join(cwd);
}
