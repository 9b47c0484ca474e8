// Where a task's network traffic went (issue 16): one row per destination of its egress
// proxy — connections allowed and denied, bytes each way, secrets injected by name (never
// a value). Reloaded whenever the task records an egress event.
import { useEffect, useState } from 'react';
import type { Destination, Task } from '../../../../preload/types';
import { bytesInWords } from '../../../../shared/request-origin';
import { airlock } from '../../bridge';
import { V } from '../../components/Visible';
import { formatRelative } from '../../format';
import { attempt } from '../../state/ui-store';

export function TaskDestinations({ task }: { task: Task }) {
  const [list, setList] = useState<Destination[] | null>(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      void attempt("Could not load the task's destinations", async () => {
        const r = await airlock()['tasks.destinations']({ task: task.id });
        if (live) setList(r.destinations);
      });
    load();
    const off = airlock().onNotification((n) => {
      if (n.method === 'event.recorded' && n.params.task === task.id && n.params.source === 'egress') load();
    });
    return () => {
      live = false;
      off();
    };
  }, [task.id]);
  if (!list) return null;
  return (
    <section className="destinations" data-testid="task-destinations" aria-label="Network destinations of this task">
      <h3>Destinations ({list.length})</h3>
      {list.length === 0 ? (
        <p className="muted small">No network connection through its egress proxy yet.</p>
      ) : (
        <table className="small">
          <thead>
            <tr>
              <th scope="col">Host:port</th>
              <th scope="col">Allowed</th>
              <th scope="col">Denied</th>
              <th scope="col">Sent</th>
              <th scope="col">Received</th>
              <th scope="col">Secrets injected</th>
              <th scope="col">Last</th>
            </tr>
          </thead>
          <tbody>
            {list.map((d) => (
              <tr key={d.resource} data-testid="task-destination" data-resource={d.resource}>
                <td className="mono"><V text={d.resource} /></td>
                <td data-testid="destination-allowed">{d.allowed}</td>
                <td data-testid="destination-denied">{d.denied}</td>
                <td>{bytesInWords(d.bytesOut)}</td>
                <td>{bytesInWords(d.bytesIn)}</td>
                <td className="mono">{d.injected.length ? <V text={d.injected.join(', ')} /> : <span className="muted">none</span>}</td>
                <td>{formatRelative(d.lastAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
