// Command texts an assistant may send through the command-wrapper template: quotes of
// both kinds, &&, |, ;, $(), backticks, newlines, a nested here-document, backslashes,
// the delimiter inside a line, and nothing at all.
import { WRAPPER_DELIMITER } from '../../main/integrations/exec/wrapper';

export const WRAPPER_COMMANDS = [
  `echo 'single quotes' "double quotes"`,
  `echo "it's" 'say "hi"'`,
  `echo a && echo b`,
  `echo abc | tr a-z A-Z`,
  `echo one; echo two`,
  'echo $(echo sub)',
  'echo `echo tick`',
  'X=inner; echo "$X" \'$X\'',
  'echo line1\necho line2',
  `printf '%s\\n' 'back\\slash' "\\$HOME"`,
  `cat <<EOF\nnested heredoc\nEOF`,
  `echo ${WRAPPER_DELIMITER} in the middle of a line`,
  `echo "'\`$(\\"`,
  '',
];
