import type { ProcessInfo } from '../../../preload/types';
import { processChain } from '../format';
import { V, vis } from './Visible';

/** `claude → bash → git → ssh`, each step with its full command line on hover. */
export function ProcessChain({ process }: { process: ProcessInfo }) {
  const chain = processChain(process);
  return (
    <span className="process-chain" data-testid="process-chain">
      {chain.map(({ name, node }, i) => (
        <span key={`${node.pid}-${i}`}>
          {i > 0 && <span className="arrow"> → </span>}
          <span className="proc" title={`pid ${node.pid}: ${vis(node.argv.join(' ') || node.exe || '')}`}>
            <V text={name} />
          </span>
        </span>
      ))}
    </span>
  );
}
