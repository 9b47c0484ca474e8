// Agent-supplied text on screen: control, bidi and invisible characters are drawn as
// marked escapes (`\x1b`, `\u202e`) by the one shared function (shared/display-text.ts),
// so a U+202E cannot turn a path around and an ESC cannot hide in a command.
import { visible, visibleParts } from '../../../shared/display-text';

/** For attributes (title, aria-label) and plain strings: the escaped text. */
export const vis = (s: string | null | undefined): string => (s ? visible(s) : '');

/** Agent text as JSX; each escape is marked so it stands out from text that merely looks like one. */
export function V({ text, multiline = false }: { text: string | null | undefined; multiline?: boolean }) {
  if (!text) return null;
  const parts = visibleParts(text, { multiline });
  if (parts.length === 1 && !parts[0]!.escaped) return <>{text}</>;
  return (
    <>
      {parts.map((p, i) =>
        p.escaped ? (
          <span key={i} className="esc" data-testid="hidden-char" title="a hidden character the agent sent, shown escaped">
            {p.text}
          </span>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}
