// Whether a text holds every needle (given in lower case) in any case: the recent tier's substring match.
export const holdsAll = (text: string, needles: readonly string[]): boolean => {
  const lower = text.toLowerCase();
  return needles.every((n) => lower.includes(n));
};
