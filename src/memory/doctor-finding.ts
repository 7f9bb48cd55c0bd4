// One problem doctor found, and what --repair did about it.
export interface DoctorFinding {
  session?: string;
  problem: string;
  repaired?: string;
  /** --repair does not change it: the problem says what to do. */
  manual?: true;
}
