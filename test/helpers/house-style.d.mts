export type CheckName = 'eslint' | 'prettier' | 'tsc';
export interface CheckOutcome {
  status: number | null;
  output: string;
}
export const CHECKS: Record<CheckName, string[]>;
export function runCheck(name: CheckName): Promise<CheckOutcome>;
