// The contract's zod-free constants, as the classifier uses them (see contract/constants.ts).
export { ACTION_RANK, LIMITS, riskier } from '../../contract/constants';
