// One problem doctor found, and what --repair did about it.
export interface DoctorFinding {
  session?: string;
  problem: string;
  repaired?: string;
}
