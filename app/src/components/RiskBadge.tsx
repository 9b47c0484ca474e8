import type { RiskLevel } from '../../../preload/types';

export function RiskBadge({ level }: { level: RiskLevel | string }) {
  return <span className={`badge risk-${level}`}>{level}</span>;
}

export function DecisionBadge({ decision }: { decision: string }) {
  return <span className={`badge decision-${decision}`}>{decision}</span>;
}
