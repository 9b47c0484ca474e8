// A task that started with `grants` asks for them in one prompt (DESIGN.md: nothing is
// granted silently): list each requested grant; the choices are refuse or accept all.
import type { GrantSpecInput, Prompt } from '../../../../preload/types';
import { formatRelative } from '../../format';

/** The core's prompt for `task.start {grants}`: tool task.start with the specs as args. */
export function requestedGrants(p: Prompt): GrantSpecInput[] | null {
  if (p.tool !== 'task.start' || !Array.isArray(p.args)) return null;
  return p.args as GrantSpecInput[];
}

export function TaskGrantsList({ specs }: { specs: GrantSpecInput[] }) {
  return (
    <section className="facts" data-testid="task-grants">
      <h3>Grants this task asks for</h3>
      <table className="table">
        <thead>
          <tr>
            <th>Effect</th>
            <th>Action</th>
            <th>Source · Tool</th>
            <th>Resource</th>
            <th>Limits</th>
          </tr>
        </thead>
        <tbody>
          {specs.map((s, i) => (
            <tr key={i}>
              <td>
                <span className={`badge decision-${s.effect}`}>{s.effect}</span>
              </td>
              <td className={s.action === '*' ? 'strong' : ''}>{s.action === '*' ? 'every action' : s.action}</td>
              <td className="mono small">
                {s.source ?? '*'} · {s.tool ?? '*'}
                {s.key && <div>key {s.key}</div>}
                {s.forwarded && <span className="badge forwarded">forwarded ok</span>}
              </td>
              <td className="mono small break">{s.resource ?? '** (anything)'}</td>
              <td className="small">
                {s.expiresAt !== undefined ? `expires ${formatRelative(typeof s.expiresAt === 'number' ? s.expiresAt : Date.parse(s.expiresAt))}` : 'until the task ends'}
                {s.uses !== undefined ? `, ${s.uses} uses` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
