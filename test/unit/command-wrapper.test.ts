// The command-wrapper template, parsed the way /bin/sh will read it: for any command
// text, the outer shell sees exactly one command (exec airlock …) and the command
// reaches airlock verbatim in the here-document, or is cut at a delimiter line.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyTemplate, commandWrapperTemplate, WRAPPER_DELIMITER } from '../../main/integrations/exec/wrapper';
import { sh, type ShCallExpr, type ShStmt } from '../../main/core/classify/sh-ast';
import { hereDocText, wordValue } from '../../main/core/classify/sh-words';
import { WRAPPER_COMMANDS } from '../helpers/wrapper-commands';


function outerParse(text: string): ShStmt[] {
  return sh().NewParser().Parse(text, 'outer').Stmts;
}

describe('command-wrapper template', () => {
  const template = commandWrapperTemplate();

  test('the template holds one {command} inside a quoted here-document', () => {
    assert.equal(template.split('{command}').length, 2);
    assert.match(template, new RegExp(`<<'${WRAPPER_DELIMITER}'\\n\\{command\\}\\n${WRAPPER_DELIMITER}$`));
    assert.match(template, /^exec airlock exec /);
  });

  for (const cmd of WRAPPER_COMMANDS) {
    test(`outer shell sees one exec with the command verbatim: ${JSON.stringify(cmd).slice(0, 60)}`, () => {
      const wrapped = applyTemplate(template, cmd, "/tmp/it's a dir");
      const stmts = outerParse(wrapped);
      assert.equal(stmts.length, 1, wrapped);
      const call = stmts[0]!.Cmd as ShCallExpr;
      assert.equal(sh().NodeType(call), 'CallExpr');
      assert.deepEqual(call.Args.map((w) => wordValue(wrapped, w).text), ['exec', 'airlock', 'exec', '--stdin-command']);
      const redirs = stmts[0]!.Redirs;
      assert.equal(redirs.length, 1);
      // The body, as the shell passes it on stdin: the command plus one newline.
      assert.equal(hereDocText(wrapped, redirs[0]!.Hdoc).text, cmd + '\n');
    });
  }

  test('a command holding the delimiter line is cut there; the rest is a separate statement the outer shell never reaches (exec)', () => {
    const cmd = `echo before\n${WRAPPER_DELIMITER}\ntouch /tmp/pwned`;
    const stmts = outerParse(applyTemplate(template, cmd, '/x'));
    assert.equal(stmts.length > 1, true);
    const first = stmts[0]!.Cmd as ShCallExpr;
    assert.equal(wordValue('', first.Args[0]).text, 'exec');
  });
});
