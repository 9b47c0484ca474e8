// "What will happen" and "who" (issue 11 item 3), as the daemon computed them: the
// consequence lines, a file tool's diff (escaped for display by <V>), and the agent's
// processes past Airlock's own, oldest first, each with its full command line.
import type { Prompt } from '../../../../preload/types';
import { V } from '../../components/Visible';

export function ConsequenceLines({ prompt }: { prompt: Prompt }) {
  if (!prompt.consequence?.length && !prompt.diff) return null;
  return (
    <section className="consequence" aria-label="What will happen" data-testid="prompt-consequence">
      {prompt.consequence?.length ? (
        <ul>
          {prompt.consequence.map((line, i) => (
            <li key={i} data-testid="consequence-line"><V text={line} /></li>
          ))}
        </ul>
      ) : null}
      {prompt.diff && prompt.diff.text && (
        <details className="diff" data-testid="prompt-diff-details" open={prompt.diff.text.split('\n').length <= 40}>
          <summary>
            Diff of <span className="mono"><V text={prompt.diff.path} /></span> (+{prompt.diff.added} −{prompt.diff.removed}
            {prompt.diff.truncated ? ', cut' : ''})
          </summary>
          <pre className="diff-text" data-testid="prompt-diff">
            {prompt.diff.text.split('\n').map((l, i) => (
              <span key={i} className={l.startsWith('+') && !l.startsWith('+++') ? 'diff-add' : l.startsWith('-') && !l.startsWith('---') ? 'diff-del' : l.startsWith('@@') ? 'diff-hunk' : undefined}>
                <V text={l} />
                {'\n'}
              </span>
            ))}
          </pre>
        </details>
      )}
    </section>
  );
}

/** The agent's side of the process tree, oldest first (`claude …` then `bash -c …`). */
export function AgentChain({ prompt }: { prompt: Prompt }) {
  if (!prompt.agent?.length) return null;
  return (
    <ol className="agent-chain mono small" data-testid="prompt-agent">
      {[...prompt.agent].reverse().map((n) => (
        <li key={n.pid} title={`pid ${n.pid}`}>
          <V text={n.commandLine} />
        </li>
      ))}
    </ol>
  );
}
